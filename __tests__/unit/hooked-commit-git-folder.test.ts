import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { failure } from '../support/errors.js'
import { hookedCommitWorld, JAIL_BACKENDS } from '../support/hooked-commit-world.js'
import type { TestRepo } from '../support/repo.js'

/**
 * A hooked commit against git's own folder (src/change/hooked-commit.ts, commit-writes.ts): all
 * of it but the object store is watched whole, and the one change allowed is the commit's own
 * (COMMIT_EDITMSG, the branch's ref, one more line in its reflog and HEAD's), as plain files.
 * Attack round 8: a reflog folder turned into a link had the put-back (and Patchsmith's own git
 * later) write outside the repository; a fifo left at logs/HEAD hung a later step; the stash's
 * reflog cut short lost the user's stashes; other files of .git stayed changed.
 */

const cleanups = cleanupAfterEach()
const { repoWith, outsideFolder, writeHook, jailed } = hookedCommitWorld(cleanups)

/**
 * Every entry of the git folder but the object store, the index, COMMIT_EDITMSG and the run's
 * own state (which ChangeBranch writes and takes away around the commit).
 */
function gitFolder(repo: TestRepo): Map<string, string> {
  const root = join(repo.dir, '.git')
  const entries = new Map<string, string>()
  const skip = new Set(['objects', 'index', 'COMMIT_EDITMSG', 'patchsmith'])
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (dir === root && (skip.has(name) || name.startsWith('patchsmith-objects-'))) continue
      const stat = lstatSync(path)
      const mode = stat.mode.toString(8)
      if (stat.isDirectory()) {
        entries.set(relative(root, path), `dir ${mode}`)
        walk(path)
      } else if (stat.isSymbolicLink())
        entries.set(relative(root, path), `link ${readlinkSync(path)}`)
      else if (stat.isFile()) {
        const hash = createHash('sha1').update(readFileSync(path)).digest('hex')
        entries.set(relative(root, path), `file ${mode} ${hash}`)
      } else entries.set(relative(root, path), `other ${mode}`)
    }
  }
  walk(root)
  return entries
}

/** What the hook does, and what the repository holds before (shell in the work tree). */
const ATTACKS: Array<[string, 'pre-commit' | 'post-commit', string, string?]> = [
  [
    'turns the branch reflogs folder into a link out of the repository and refuses',
    'pre-commit',
    'mv .git/logs/refs/heads .git/logs/refs/heads.moved && ln -s "$OUTSIDE" .git/logs/refs/heads\nexit 1'
  ],
  [
    'turns .git/logs into a link out of the repository',
    'post-commit',
    'mv .git/logs .git/logs.moved && ln -s "$OUTSIDE" .git/logs'
  ],
  ['leaves a fifo at .git/logs/HEAD', 'post-commit', 'rm .git/logs/HEAD && mkfifo .git/logs/HEAD'],
  [
    "cuts the stash's reflog to its last entry",
    'post-commit',
    't=$(mktemp); tail -1 .git/logs/refs/stash > $t && cat $t > .git/logs/refs/stash'
  ],
  [
    'rewrites .git/description and opens .git/logs to everyone',
    'post-commit',
    'echo evil > .git/description; chmod 777 .git/logs'
  ],
  [
    'turns .git/logs into a link and leaves a 3 GiB file (sparse) in .git/info, past what node reads',
    'post-commit',
    'mv .git/logs .git/logs.moved && ln -s "$OUTSIDE" .git/logs; truncate -s 3G .git/info/big'
  ],
  [
    'gives COMMIT_EDITMSG a second name, another file of .git, which a later commit would write',
    'post-commit',
    'ln -f .git/description .git/COMMIT_EDITMSG'
  ],
  [
    "replaces a submodule's reflogs folder in .git/modules with a link out of the repository",
    'post-commit',
    'rm -rf .git/modules/sub/logs && ln -s "$OUTSIDE" .git/modules/sub/logs',
    'git init -q --bare .git/modules/sub && mkdir .git/modules/sub/logs'
  ],
  [
    "replaces a reflog in a submodule's git folder with a link out of the repository",
    'post-commit',
    'rm .git/modules/sub/logs/HEAD && ln -s "$OUTSIDE/victim" .git/modules/sub/logs/HEAD',
    'git init -q --bare .git/modules/sub && mkdir .git/modules/sub/logs && echo line > .git/modules/sub/logs/HEAD'
  ],
  [
    'adds a forged line to the reflog of HEAD',
    'post-commit',
    `echo "$(git rev-parse HEAD) $(git rev-parse HEAD^) x <x@x> 0 +0000	evil" >> .git/logs/HEAD`
  ]
]

describe.each(JAIL_BACKENDS)('a hooked commit against .git, in the %s jail', (backend, skip) => {
  it.skipIf(skip).each(ATTACKS)(
    'a hook that %s is hook-tampered: .git as it was, nothing written outside',
    async (_name, hookName, body, setup) => {
      const repo = repoWith()
      if (setup) execFileSync('sh', ['-c', setup], { cwd: repo.dir })
      // Two stashes of the user's, whose older one lives only in the stash's reflog.
      for (const text of ['one\n', 'two\n']) {
        writeFileSync(join(repo.dir, 'notes.txt'), text)
        repo.git('stash', '-q')
      }
      const outside = outsideFolder()
      writeHook(repo.dir, hookName, body, outside)
      const { branch, commit } = await jailed(repo, backend)
      const before = gitFolder(repo)
      const error = await failure(commit())
      expect(error).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'hook-tampered' }
      })
      expect(gitFolder(repo)).toEqual(before)
      expect(readdirSync(outside)).toEqual([])
      await branch.rollback()
      expect(repo.git('stash', 'list').split('\n')).toHaveLength(2)
      expect(repo.git('fsck', '--full', '--no-dangling', '--no-progress')).toBe('')
      expect(readdirSync(outside)).toEqual([])
    }
  )
})
