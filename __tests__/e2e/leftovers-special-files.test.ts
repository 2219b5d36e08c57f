/**
 * Fifos validation leaves on the tree itself (no overlay), where git opens them: git reads every
 * `.gitignore` (status, the untracked listing) and `.gitattributes` (apply, and each file it
 * hashes), and opening a fifo waits for a writer that never comes. Before git looks at the tree,
 * after the round and before git resets it mid-round (a base check after a command changed a
 * planned file, so the files cannot simply be swapped back), the fifos, sockets
 * and devices validation left are removed: the run ends, and the tree is as found plus the
 * change. Through dist/, as root under bubblewrap and unshare, and as a GitHub-hosted runner's
 * user (bubblewrap, not root: the tree itself is the default there).
 */
import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { DIST_WAYS } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

const WAYS = DIST_WAYS

type Way = readonly [string, string, string | undefined, boolean]

async function run(
  way: Way,
  validation: string,
  diffs: string[],
  plant = (_dir: string) => {},
  inputs: Record<string, string> = {}
) {
  const [, backend, user] = way
  const repo = fruitRepo({ '.gitignore': 'node_modules/\n', 'docs/guide.md': 'guide\n' })
  cleanups.push(() => repo.cleanup())
  // Before rmSync, which cannot name a path past PATH_MAX (a run that failed left DEEP).
  cleanups.push(() => execFileSync('find', [repo.root, '-delete']))
  plant(repo.dir)
  const done = await runOnFruit(
    repo,
    fruitReplies(diffs),
    {
      'validation-commands': validation,
      sandbox: 'required',
      settings: 'validation-overlay: false',
      ...inputs
    },
    { PATCHSMITH_SANDBOX_BACKENDS: backend },
    { dist: true, user }
  )
  return { repo, done }
}

function expectGone(root: string, paths: string[]) {
  for (const path of paths)
    expect(lstatSync(join(root, path), { throwIfNoEntry: false }), path).toBeUndefined()
}

/** A folder chain whose fifo's path is 4 094 bytes: git opens it, `find ./<path>` cannot start there. */
const DEEP = `node -e 'const fs = require("fs"), x = "x".repeat(200), y = "y".repeat(63); for (let i = 0; i < 20; i++) { fs.mkdirSync(x); process.chdir(x) } fs.mkdirSync(y); process.chdir(y); require("child_process").execFileSync("mkfifo", [".gitignore"])'`

describe.each(WAYS)('fifos validation leaves on the tree itself, %s', (...way) => {
  it.runIf(way[3])(
    'removes them before git looks, however named, deep or moved into view: the run commits',
    async () => {
      const { repo, done } = await run(
        way,
        [
          'mkdir -p sub && mkfifo sub/.gitignore .gitattributes',
          // A folder whose name is not UTF-8, one past what find can start at, and a fifo
          // planted earlier in an ignored folder (its old ctime kept) moved into view.
          `mkdir "$(printf '\\377')" && mkfifo "$(printf '\\377')/.gitignore"`,
          DEEP,
          'mv node_modules/evil moved',
          'sh check.sh'
        ].join(' && '),
        [swap('apple', 'kiwi')],
        (dir) => {
          mkdirSync(join(dir, 'node_modules/evil'), { recursive: true })
          execFileSync('mkfifo', [join(dir, 'node_modules/evil/.gitignore')])
        }
      )
      expect(done.exitCode, done.stdout).toBe(0)
      expect(execFileSync('find', [repo.dir, '-type', 'p'], { encoding: 'utf8' })).toBe('')
      expectGone(repo.dir, ['.gitattributes', 'sub', 'moved', 'node_modules/evil'])
      const removed = done.result.metrics?.removed_after_validation as { paths: string[] }
      expect(removed.paths).toEqual(expect.arrayContaining(['.gitattributes', 'sub', 'moved']))
      expect(removed.paths).toHaveLength(5)
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
    }
  )
})

// The tree itself is the default as a hosted runner's user: one way is enough for this path.
const HOSTED = WAYS[2]
describe('a fifo validation leaves before git resets mid-round, ' + HOSTED[0], () => {
  it.runIf(HOSTED[3])(
    'is removed first: the base check after a planned file changed refuses, nothing hangs',
    async () => {
      // The mode change makes the base check reset with git instead of swapping files back.
      const { repo, done } = await run(
        HOSTED,
        'mkfifo .gitattributes; chmod +x fruit.txt; sh check.sh',
        [swap('apple', 'pear')]
      )
      expect(done.exitCode, done.stdout).toBe(1)
      expect(done.result.error?.details).toMatchObject({
        rule: 'unexpected-changes',
        stage: 'base-check'
      })
      expectGone(repo.dir, ['.gitattributes'])
      expect(done.result.metrics?.removed_after_validation).toEqual({
        count: 1,
        paths: ['.gitattributes']
      })
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
    }
  )
})

/**
 * A fifo there before the run where git opens it (no listing of what validation left sees it):
 * a `.gitattributes` beside a tracked file whose time changed (git reads the file with its
 * attributes to compare it), or a `.gitignore` in a folder git lists for untracked files.
 */
const THERE_BEFORE = [
  [
    '.gitattributes, ' + WAYS[0][0],
    WAYS[0],
    '.gitattributes',
    (dir: string) => utimesSync(join(dir, 'fruit.txt'), new Date(), new Date(Date.now() + 60_000))
  ],
  [
    '.gitignore, ' + HOSTED[0],
    HOSTED,
    'sub/.gitignore',
    (dir: string) => mkdirSync(join(dir, 'sub'))
  ]
] as const

describe.each(THERE_BEFORE)('a fifo there before the run: %s', (_, way, fifo, prepare) => {
  it.runIf(way[3])(
    'stops the git that waits on it: ENVIRONMENT_ERROR naming it, nothing changed',
    async () => {
      const { repo, done } = await run(way, 'sh check.sh', [swap('apple', 'kiwi')], (dir) => {
        prepare(dir)
        execFileSync('mkfifo', [join(dir, fifo)])
      })
      expect(done.exitCode, done.stdout).toBe(1)
      expect(done.result.error?.code).toBe('ENVIRONMENT_ERROR')
      expect(done.result.error?.details).toMatchObject({
        rule: 'git-fifo',
        path: join(repo.dir, fifo)
      })
      expect(lstatSync(join(repo.dir, fifo)).isFIFO()).toBe(true)
      expect(repo.read('fruit.txt')).toBe('apple\n')
      expect(repo.gitOrigin('branch', '--list')).toBe('* main')
    }
  )
})

describe.each([WAYS[0], HOSTED])("the user's own fifo, %s", (...way) => {
  it.runIf(way[3])(
    'is kept when validation links it (its ctime changes); the link validation made goes',
    async () => {
      const { repo, done } = await run(
        way,
        'ln node_modules/user.fifo node_modules/link.fifo && sh check.sh',
        [swap('apple', 'kiwi')],
        (dir) => {
          mkdirSync(join(dir, 'node_modules'))
          execFileSync('mkfifo', [join(dir, 'node_modules/user.fifo')])
        }
      )
      expect(done.exitCode, done.stdout).toBe(0)
      expect(lstatSync(join(repo.dir, 'node_modules/user.fifo')).isFIFO()).toBe(true)
      expectGone(repo.dir, ['node_modules/link.fifo'])
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
    }
  )
})

describe.each([
  ['as root, on the tree itself (validation-overlay: false)', WAYS[0]],
  ['on the hosted runner’s path', HOSTED]
] as const)('commit hooks with no overlay to take their writes, %s', (_name, way) => {
  it.runIf(way[3])(
    'find the work tree read-only: the user’s files are never replaced by a link or a fifo, nor written',
    async () => {
      const hook = [
        'rm -f notes.txt; ln -s /etc/passwd notes.txt',
        'rm -f node_modules/user.js; mkfifo node_modules/user.js',
        'echo evil >> fruit.txt',
        'exit 0'
      ].join('\n')
      const plant = (dir: string) => {
        writeFileSync(join(dir, 'notes.txt'), 'mine\n')
        mkdirSync(join(dir, 'node_modules'))
        writeFileSync(join(dir, 'node_modules/user.js'), 'mine\n')
        writeFileSync(join(dir, '.git/hooks/post-commit'), `#!/bin/sh\n${hook}\n`, { mode: 0o755 })
      }
      const { repo, done } = await run(way, 'sh check.sh', [swap('apple', 'kiwi')], plant, {
        'git-hooks': 'true'
      })
      const kinds = ['notes.txt', 'node_modules/user.js'].map((path) =>
        lstatSync(join(repo.dir, path)).isFile()
      )
      expect(kinds).toEqual([true, true])
      expect(done.exitCode, done.stdout).toBe(0)
      expect(repo.read('notes.txt')).toBe('mine\n')
      expect(repo.read('node_modules/user.js')).toBe('mine\n')
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
    }
  )
})

describe.each([WAYS[0], WAYS[1]])("the work tree's own folder, %s", (...way) => {
  it.runIf(way[3])(
    'opened to everyone and given to another user by validation, is put back before git looks: the run commits',
    async () => {
      const mine = (dir: string) => mkdirSync(join(dir, 'node_modules/pkg'), { recursive: true })
      const { repo, done } = await run(
        way,
        'chmod 0777 . && chown 4242:4242 . docs node_modules/pkg && touch docs/x && sh check.sh',
        [swap('apple', 'kiwi')],
        mine
      )
      expect(done.exitCode, done.stdout).toBe(0)
      // A tracked folder and the user's ignored one, given away too: back to their owner.
      const owners = ['.', 'docs', 'node_modules/pkg'].map((path) => {
        const stat = lstatSync(join(repo.dir, path))
        return [path, stat.mode & 0o7777, stat.uid, stat.gid]
      })
      expect(owners).toEqual([
        ['.', 0o755, 0, 0],
        ['docs', 0o755, 0, 0],
        ['node_modules/pkg', 0o755, 0, 0]
      ])
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )
})

/**
 * Into the user's folder 4 800 bytes deep under node_modules/deep (no path from the root names
 * it; dash cannot cd there), or one whose name is not UTF-8, and `then` done there.
 */
const INTO = `const fs = require('fs')
const [where, then] = process.argv.slice(2)
// A name that is not UTF-8 is no string: the folder is named by its bytes.
let at = (name) => name
if (where === 'deep') {
  process.chdir('node_modules/deep')
  for (let i = 0; i < 20; i++) process.chdir('d'.repeat(240))
} else {
  const odd = Buffer.concat([Buffer.from('node_modules/bad'), Buffer.from([0xff])])
  at = (name) => (name === '.' ? odd : Buffer.concat([odd, Buffer.from('/' + name)]))
}
if (then === 'plant') {
  fs.chmodSync(at('.'), 0o2777)
  if (process.getuid() === 0) fs.chownSync(at('.'), 4242, 4242)
  fs.writeFileSync(at('planted'), 'x')
  fs.mkdirSync(at('made'))
  fs.writeFileSync(at('made/x'), 'x')
} else {
  const { mode, uid } = fs.statSync(at('.'))
  console.log((mode & 0o7777).toString(8), uid, fs.readdirSync(at('.')).join(','))
}
`

describe.each(WAYS)('folders of the user’s that no path from the root names, %s', (...way) => {
  it.runIf(way[3])(
    'past PATH_MAX or not UTF-8: their mode (and as root owner) back, what validation put in them removed',
    async () => {
      const plant = (dir: string) => {
        mkdirSync(Buffer.concat([Buffer.from(`${dir}/node_modules/bad`), Buffer.from([0xff])]), {
          recursive: true
        })
        writeFileSync(join(dir, 'node_modules/into.js'), INTO)
        execFileSync('node', ['-e', DEEP_FOLDERS], { cwd: dir })
      }
      const into = (where: string, then: string) => `node node_modules/into.js ${where} ${then}`
      const { repo, done } = await run(
        way,
        `${into('deep', 'plant')} && ${into('odd', 'plant')} && sh check.sh`,
        [swap('apple', 'kiwi')],
        plant
      )
      expect(done.exitCode, done.stdout).toBe(0)
      const uid = way[2] ? lstatSync(repo.dir).uid : 0
      const seen = ['deep', 'odd'].map((where) =>
        execFileSync('sh', ['-c', into(where, 'look')], { cwd: repo.dir, encoding: 'utf8' }).trim()
      )
      expect(seen).toEqual([`755 ${uid}`, `755 ${uid}`])
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
    }
  )
})

const DEEP_FOLDERS = `const fs = require('fs'); fs.mkdirSync('node_modules/deep', { recursive: true }); process.chdir('node_modules/deep'); for (let i = 0; i < 20; i++) { fs.mkdirSync('d'.repeat(240)); process.chdir('d'.repeat(240)) }`
