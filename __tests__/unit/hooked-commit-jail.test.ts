import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { failure } from '../support/errors.js'
import { hookedCommitWorld, JAIL_BACKENDS } from '../support/hooked-commit-world.js'
import type { TestRepo } from '../support/repo.js'
import { MESSAGE } from '../support/change-branch-world.js'
import { FORGE_BLOB, looseFile, overwritePack } from '../support/object-forgeries.js'

/**
 * A hooked commit in the real jail (src/change/hooked-commit.ts, change-objects.ts): the
 * repository's object store is read-only to the hooks and the commit's objects go to a
 * quarantine, so no hook can forge an object the change, a rollback or a later checkout reads.
 * Attack rounds 6 to 8: each of these wrote a forged blob into the tree or HEAD before.
 */

const MESSAGE_SUBJECT = MESSAGE.split('\n')[0]
const cleanups = cleanupAfterEach()
const { repoWith, outsideFolder, writeHook, jailed } = hookedCommitWorld(cleanups)

const ATTACKS: Array<[string, 'pre-commit' | 'post-commit', string]> = [
  [
    "rewrites the approved blob's loose file in place",
    'post-commit',
    `sha=$(git rev-parse HEAD:src/greet.txt); f=${looseFile('$sha')}; chmod 644 $f; ${FORGE_BLOB} $f`
  ],
  [
    'packs a forged copy of the base blob beside the store and refuses',
    'pre-commit',
    `sha=$(git rev-parse HEAD:src/greet.txt); f=${looseFile('$sha')}
cp $f $f.keep; chmod 644 $f; ${FORGE_BLOB} $f
echo $sha | env -u GIT_OBJECT_DIRECTORY git pack-objects -q .git/objects/pack/pack >/dev/null
mv -f $f.keep $f; exit 1`
  ],
  [
    'overwrites the existing pack in place with one holding a forged base blob and refuses',
    'pre-commit',
    `${overwritePack('src/greet.txt')}\nexit 1`
  ],
  [
    'moves the object store aside for a copy with a forged base blob and refuses',
    'pre-commit',
    `sha=$(git rev-parse HEAD:src/greet.txt)
mv .git/objects .git/moved && cp -a .git/moved .git/objects
f=${looseFile('$sha')}; rm -f $f; ${FORGE_BLOB} $f; exit 1`
  ],
  [
    "turns the approved blob's fan-out folder into a link out of the repository",
    'post-commit',
    `sha=$(git rev-parse HEAD:src/greet.txt); d=.git/objects/$(echo $sha | cut -c1-2)
mv $d $d.moved; ln -s "$OUTSIDE" $d`
  ]
]

/** Every file of the object store and a hash of its bytes. */
function store(repo: TestRepo): Map<string, string> {
  const root = join(repo.dir, '.git', 'objects')
  const files = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else
        files.set(relative(root, path), createHash('sha1').update(readFileSync(path)).digest('hex'))
    }
  }
  walk(root)
  return files
}

describe.each(JAIL_BACKENDS)('a hooked commit in the %s jail', (backend, skip) => {
  it.skipIf(skip).each(ATTACKS)(
    'a hook that %s changes no object of the repository',
    async (_name, hookName, body) => {
      const repo = repoWith()
      repo.git('repack', '-a', '-d', '-q')
      const outside = outsideFolder()
      writeHook(repo.dir, hookName, body, outside)
      const { branch, commit } = await jailed(repo, backend)
      const before = store(repo)
      if (hookName === 'pre-commit') {
        expect(await failure(commit())).toMatchObject({ code: 'VALIDATION_FAILED' })
        await branch.rollback()
      } else await commit()
      // Every file the store had, as it was; no pack added (what Patchsmith itself wrote,
      // the approved trees, is loose).
      const after = store(repo)
      for (const [path, hash] of before) expect([path, after.get(path)]).toEqual([path, hash])
      const packs = (files: Map<string, string>) =>
        [...files.keys()].filter((path) => path.startsWith('pack/'))
      expect(packs(after)).toEqual(packs(before))
      expect(repo.git('fsck', '--full', '--no-dangling', '--no-progress')).toBe('')
      expect(readFileSync(join(repo.dir, 'src/greet.txt'), 'utf8')).not.toContain('evil')
      expect(repo.git('cat-file', '-p', 'HEAD:src/greet.txt')).not.toContain('evil')
      expect(readdirSync(outside)).toEqual([])
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )

  it.skipIf(skip)(
    "a hook that forges the commit's object in the quarantine is SECURITY_VIOLATION; nothing is adopted",
    async () => {
      const repo = repoWith()
      // The commit git just wrote to the quarantine, its file given another commit on the same
      // tree and parent (another author and message), under the same name.
      const forge = [
        'const fs = require("fs"), zlib = require("zlib"), cp = require("child_process")',
        'const git = (...a) => cp.execFileSync("git", a).toString().trim()',
        'const c = git("rev-parse", "HEAD"), t = git("rev-parse", "HEAD^{tree}"), p = git("rev-parse", "HEAD^")',
        'const body = `tree ${t}\\nparent ${p}\\nauthor e <e@e> 0 +0000\\ncommitter e <e@e> 0 +0000\\n\\nevil\\n`',
        'const f = process.env.GIT_OBJECT_DIRECTORY + "/" + c.slice(0, 2) + "/" + c.slice(2)',
        'fs.chmodSync(f, 0o644)',
        'fs.writeFileSync(f, zlib.deflateSync(Buffer.from(`commit ${body.length}\\0${body}`)))'
      ].join('; ')
      writeHook(repo.dir, 'post-commit', `node -e '${forge}'`)
      const { branch, commit } = await jailed(repo, backend)
      const error = await failure(commit())
      expect(error).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'hook-tampered' }
      })
      expect(error.message).toMatch(/cannot be read|does not hold what its name says/)
      await branch.rollback()
      expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
      expect(repo.git('fsck', '--full', '--no-dangling', '--no-progress')).toBe('')
      expect(
        readdirSync(join(repo.dir, '.git')).filter((name) => name.startsWith('patchsmith-'))
      ).toEqual([])
    }
  )

  it.skipIf(skip)(
    "a hook that plants objects in the quarantine under the approved tree's name adopts none of them",
    async () => {
      const repo = repoWith()
      // A blob E and a malformed tree B (E twice under one name) that hash to their names, and
      // under the approved tree's name a tree holding B: what a walk from the quarantine finds.
      const plant = [
        'const fs = require("fs"), zlib = require("zlib"), crypto = require("crypto"), cp = require("child_process")',
        'const q = process.env.GIT_OBJECT_DIRECTORY',
        'const put = (type, body, name) => { const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\\0`), body]); const sha = name || crypto.createHash("sha1").update(raw).digest("hex"); fs.mkdirSync(q + "/" + sha.slice(0, 2), { recursive: true }); fs.rmSync(q + "/" + sha.slice(0, 2) + "/" + sha.slice(2), { force: true }); fs.writeFileSync(q + "/" + sha.slice(0, 2) + "/" + sha.slice(2), zlib.deflateSync(raw)); return sha }',
        'const a = cp.execFileSync("git", ["rev-parse", "HEAD^{tree}"]).toString().trim()',
        'const e = put("blob", Buffer.from("evil\\n"))',
        'const entry = Buffer.concat([Buffer.from("100644 a\\0"), Buffer.from(e, "hex")])',
        'const b = put("tree", Buffer.concat([entry, entry]))',
        'put("tree", Buffer.concat([Buffer.from("40000 x\\0"), Buffer.from(b, "hex")]), a)',
        // Told where the test reads it: COMMIT_EDITMSG, which git itself writes.
        'fs.appendFileSync(".git/COMMIT_EDITMSG", `planted ${e} ${b}\\n`)'
      ].join('; ')
      writeHook(repo.dir, 'post-commit', `node -e '${plant}'`)
      const { commit } = await jailed(repo, backend)
      await commit()
      // The commit stands on the store's tree; what the hook planted stays out of the store.
      expect(repo.git('cat-file', '-p', 'HEAD:src/greet.txt')).toBe('hello, world')
      expect(repo.git('fsck', '--full', '--no-dangling', '--no-progress')).toBe('')
      const planted = /planted (\w+) (\w+)/.exec(repo.read('.git/COMMIT_EDITMSG'))!
      for (const sha of planted.slice(1)) expect(() => repo.git('cat-file', '-e', sha)).toThrow()
    }
  )

  it.skipIf(skip)(
    'in a linked worktree, whose git folders lie outside the tree (hidden in the jail), the hooks run and the commit is made',
    async () => {
      const repo = repoWith()
      const tree = join(repo.root, 'linked')
      repo.git('worktree', 'add', '-q', '-b', 'side', tree)
      writeHook(repo.dir, 'pre-commit', 'echo "checked $(git diff --cached --name-only)" >&2')
      const { commit, checkout } = await jailed(repo, backend, tree)
      await commit()
      expect(checkout.git('log', '--format=%s', '-1')).toBe(MESSAGE_SUBJECT)
      expect(checkout.git('cat-file', '-p', 'HEAD:src/greet.txt')).toBe('hello, world')
      expect(repo.git('fsck', '--full', '--no-dangling', '--no-progress')).toBe('')
      expect(checkout.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )

  it.skipIf(skip)(
    "in a linked worktree, a hook that moves the worktree's git folder aside for a link out of the repository cannot: nothing outside is touched",
    async () => {
      const repo = repoWith()
      const tree = join(repo.root, 'linked')
      repo.git('worktree', 'add', '-q', '-b', 'side', tree)
      const outside = outsideFolder()
      writeFileSync(join(outside, 'victim.txt'), 'mine\n')
      const move =
        'd=$(git rev-parse --absolute-git-dir)\nmv "$d" "$d.moved" && ln -s "$OUTSIDE" "$d"\nexit 1'
      writeHook(repo.dir, 'pre-commit', move, outside)
      const { branch, commit, checkout } = await jailed(repo, backend, tree)
      expect(await failure(commit())).toMatchObject({ code: 'VALIDATION_FAILED' })
      expect(readdirSync(outside)).toEqual(['victim.txt'])
      expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('mine\n')
      await branch.rollback()
      expect(checkout.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )
})
