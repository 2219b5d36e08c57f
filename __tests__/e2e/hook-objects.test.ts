/**
 * Commit hooks cannot forge what the repository's object store holds (attack round 7): a
 * pre-commit hook that overwrote the existing pack in place with a forged copy of the base blob
 * and refused had the rollback check the forged bytes out into the tree and HEAD read them. The
 * store is read-only to hooks and the commit's objects go to a quarantine. Through dist/, as root
 * on the overlay (bubblewrap, unshare) and as a hosted runner's user (bubblewrap, no overlay).
 */
import { createHash } from 'node:crypto'
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { overwritePack } from '../support/object-forgeries.js'
import { DIST_WAYS } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

const WAYS = DIST_WAYS

/** The pack folder's files and a hash of each. */
function packs(dir: string): Record<string, string> {
  const folder = join(dir, '.git/objects/pack')
  return Object.fromEntries(
    readdirSync(folder).map((name) => [
      name,
      createHash('sha1')
        .update(readFileSync(join(folder, name)))
        .digest('hex')
    ])
  )
}

describe.each(WAYS)('a commit hook against the object store, %s', (_name, backend, user, runs) => {
  it.runIf(runs)(
    'overwriting the pack in place is refused by the store: the hook fails, no forged byte reaches the tree or HEAD',
    async () => {
      const repo = fruitRepo()
      cleanups.push(() => repo.cleanup())
      repo.git('repack', '-a', '-d', '-q')
      const hook = join(repo.dir, '.git/hooks/pre-commit')
      writeFileSync(hook, `#!/bin/sh\n${overwritePack('fruit.txt')}\nexit 1\n`, { mode: 0o755 })
      const before = packs(repo.dir)
      const done = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        { 'validation-commands': 'sh check.sh', sandbox: 'required', 'git-hooks': 'true' },
        { PATCHSMITH_SANDBOX_BACKENDS: backend },
        { dist: true, user }
      )
      expect(done.result.error, done.stdout).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { rule: 'commit-hook' }
      })
      expect(packs(repo.dir)).toEqual(before)
      expect(repo.git('fsck', '--full', '--no-dangling', '--no-progress')).toBe('')
      expect(repo.read('fruit.txt')).toBe('apple\n')
      expect(repo.git('cat-file', '-p', 'HEAD:fruit.txt')).toBe('apple')
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )
})

// As root every folder reads: only a hosted runner's user meets one a hook closed.
describe('a commit hook that closes a folder of .git and links reflogs out, ' + WAYS[2][0], () => {
  it.runIf(WAYS[2][3]).each([
    [
      '.git/refs, beside the link',
      'rm -rf .git/logs && ln -s "$OUTSIDE" .git/logs; chmod 000 .git/refs'
    ],
    [
      'the folder that holds the link',
      'rm -rf .git/logs/refs/remotes && ln -s "$OUTSIDE" .git/logs/refs/remotes; chmod 000 .git/logs/refs'
    ],
    [
      'the folder that holds the link to listing only (0400)',
      'rm -rf .git/logs/refs/heads && ln -s "$OUTSIDE" .git/logs/refs/heads; chmod 0400 .git/logs/refs'
    ],
    [
      'the folder that holds the link, and the one above it',
      'rm -rf .git/logs/refs/heads && ln -s "$OUTSIDE" .git/logs/refs/heads; chmod 000 .git/logs/refs .git/logs'
    ],
    [
      'the folder of the branch refs, to listing only (0400)',
      'rm -rf .git/refs/heads && ln -s "$OUTSIDE" .git/refs/heads; chmod 0400 .git/refs'
    ],
    ['.git itself', 'chmod 000 .git'],
    [
      'a folder it made at the top of .git, a link inside',
      'mkdir .git/evil && ln -s "$OUTSIDE" .git/evil/lnk && chmod 000 .git/evil'
    ]
  ])(
    'closing %s is hook-tampered: .git put back whole (the folder opened again, the link gone), nothing written outside',
    async (_what, body) => {
      const repo = fruitRepo()
      cleanups.push(() => repo.cleanup())
      const outside = mkdtempSync(join(tmpdir(), 'patchsmith-outside-'))
      cleanups.push(() => rmSync(outside, { recursive: true, force: true }))
      chmodSync(outside, 0o777)
      const hook = join(repo.dir, '.git/hooks/post-commit')
      writeFileSync(hook, `#!/bin/sh\nOUTSIDE='${outside}'\n${body}\n`, { mode: 0o755 })
      const done = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        { 'validation-commands': 'sh check.sh', sandbox: 'required', 'git-hooks': 'true' },
        { PATCHSMITH_SANDBOX_BACKENDS: WAYS[2][1] },
        { dist: true, user: WAYS[2][2] }
      )
      expect(done.result.error, done.stdout).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'hook-tampered' }
      })
      expect(readdirSync(outside)).toEqual([])
      expect(lstatSync(join(repo.dir, '.git/evil'), { throwIfNoEntry: false })).toBeUndefined()
      for (const folder of ['', 'logs', 'logs/refs', 'logs/refs/heads', 'refs', 'refs/heads']) {
        const stat = lstatSync(join(repo.dir, '.git', folder))
        expect([folder, stat.isDirectory(), stat.mode & 0o777]).toEqual([folder, true, 0o755])
      }
      expect(repo.git('fsck', '--full', '--no-dangling', '--no-progress')).toBe('')
      expect(repo.read('fruit.txt')).toBe('apple\n')
    }
  )
})
