/**
 * A git command of the run that waits to open a fifo (one named .gitattributes beside a tracked
 * file that changed: git reads it to compare the file's content) is stopped and fails with
 * ENVIRONMENT_ERROR naming the fifo, on both ways a git command runs (quick, and under the
 * supervisor); before the watch, each waited forever (plain `git status` here does).
 */
import { execFileSync, spawn } from 'node:child_process'
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync
} from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PatchsmithError } from '../../src/contract/index.js'
import { Git } from '../../src/git/index.js'
import { gitProcess } from '../../src/git/git-process.js'
import { gitProgram } from '../../src/git/git-seal.js'
import { createRepo, type TestRepo } from '../support/repo.js'

let repo: TestRepo
let fifo: string

beforeEach(() => {
  repo = createRepo({ files: { 'lib/a.txt': 'a\n', 'README.md': 'r\n' }, prefix: 'fifo' })
  fifo = join(repo.dir, 'lib', '.gitattributes')
  execFileSync('mkfifo', [fifo])
  writeFileSync(join(repo.dir, 'lib', 'a.txt'), 'b\n')
})

afterEach(() => {
  // A writer lets go of a git process the watch did not stop, so the test ends either way
  // (opened without waiting: ENXIO when nothing reads).
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
  } catch {
    // nothing waits on it
  }
  repo.cleanup()
})

/**
 * git processes of this test process still waiting to open a fifo or holding the test's fifo
 * open (a worker runs other files' git processes too, such as a `cat-file --batch` they keep).
 */
function gitChildrenOnFifo(): string[] {
  const found: string[] = []
  for (const task of readdirSync('/proc/self/task')) {
    const children = readFileSync(`/proc/self/task/${task}/children`, 'utf8')
    for (const pid of children.split(' ').filter(Boolean)) {
      try {
        if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('git')) continue
        const waiting = readdirSync(`/proc/${pid}/task`).some(
          (tid) => readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8') === 'wait_for_partner'
        )
        const holding = readdirSync(`/proc/${pid}/fd`).some(
          (fd) => readlinkSync(`/proc/${pid}/fd/${fd}`) === fifo
        )
        if (waiting || holding) found.push(pid)
      } catch {
        // gone
      }
    }
  }
  return found
}

async function refusal(run: () => Promise<unknown>): Promise<PatchsmithError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught
  )
  expect(error).toBeInstanceOf(PatchsmithError)
  return error as PatchsmithError
}

describe.skipIf(process.platform !== 'linux')('git waiting on a fifo', () => {
  it("stops the run's status and names the fifo", async () => {
    const git = await Git.open(repo.dir)
    const error = await refusal(() => git.status())
    expect(error.code).toBe('ENVIRONMENT_ERROR')
    expect(error.details).toMatchObject({ rule: 'git-fifo', path: fifo })
    expect(error.message).toContain(`at ${fifo}`)
    expect(gitChildrenOnFifo()).toEqual([])
  })

  it('stops a command run under the supervisor too', async () => {
    const args = ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no']
    const options = { cwd: repo.dir, env: { PATH: process.env.PATH }, long: true }
    const error = await refusal(async () => gitProcess(await gitProgram(), args, options))
    expect(error.details).toMatchObject({ rule: 'git-fifo', path: fifo })
    expect(gitChildrenOnFifo()).toEqual([])
  })

  it("stops git-upload-pack too: a fifo in the remote's config", async () => {
    const inc = join(repo.origin, 'inc.cfg')
    execFileSync('mkfifo', [inc])
    writeFileSync(join(repo.origin, 'config'), '[include]\n\tpath = inc.cfg\n', { flag: 'a' })
    const git = await Git.open(repo.dir)
    const error = await refusal(() => git.remoteHeads('origin', 'main'))
    expect(error.details).toMatchObject({ rule: 'git-fifo', path: inc })
    expect(gitChildrenOnFifo()).toEqual([])
  })

  it('opens no fifo itself: an include git never reads, whose target is a fifo', async () => {
    const inc = join(repo.dir, '.git', 'inc.cfg')
    execFileSync('mkfifo', [inc])
    writeFileSync(
      join(repo.dir, '.git', 'config'),
      '[includeIf "onbranch:nope"]\n\tpath = inc.cfg\n',
      {
        flag: 'a'
      }
    )
    rmSync(fifo)
    const status = await (await Git.open(repo.dir)).status()
    expect(status.changed.map((entry) => entry.path)).toEqual(['lib/a.txt'])
  })

  it('stops a read that waits: a process holds the fifo open and writes nothing', async () => {
    // Opened for reading and writing, as a writer left running beside the job would hold it:
    // git's open then returns at once, and its read waits for data that never comes.
    const holder = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK)
    try {
      const error = await refusal(async () => (await Git.open(repo.dir)).status())
      expect(error.details).toMatchObject({ rule: 'git-fifo', path: fifo })
      expect(gitChildrenOnFifo()).toEqual([])
    } finally {
      closeSync(holder)
    }
  })

  it('stops a read that never waits: the fifo is fed without end', async () => {
    // Comment lines: git reads each and keeps nothing, so only the watch can end it.
    const writer = spawn('sh', ['-c', 'exec 3<>"$0"; exec yes "#" >&3', fifo], {
      stdio: 'ignore',
      detached: true
    })
    try {
      const error = await refusal(async () => (await Git.open(repo.dir)).status())
      expect(error.details).toMatchObject({ rule: 'git-fifo', path: fifo })
      expect(gitChildrenOnFifo()).toEqual([])
    } finally {
      process.kill(-writer.pid!, 'SIGKILL')
    }
  })

  it('takes away the lock file of the git it stops (a fifo at a loose object)', async () => {
    rmSync(fifo)
    writeFileSync(join(repo.dir, 'lib', 'a.txt'), 'a\n')
    const blob = repo.git('rev-parse', 'HEAD:lib/a.txt')
    fifo = join(repo.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2))
    rmSync(fifo)
    execFileSync('mkfifo', [fifo])
    const patch = [
      'diff --git a/lib/a.txt b/lib/a.txt',
      '--- a/lib/a.txt',
      '+++ b/lib/a.txt',
      '@@ -1 +1 @@',
      '-a',
      '+c',
      ''
    ].join('\n')
    const git = await Git.open(repo.dir)
    const error = await refusal(() => git.applyCached(patch))
    expect(error.details).toMatchObject({ rule: 'git-fifo', path: fifo })
    expect(existsSync(join(repo.dir, '.git', 'index.lock'))).toBe(false)
  })

  it('takes away only the lock files it held open to write in a git folder, never a file of the tree', async () => {
    // A stand-in git (the shell, by that name) holding files open as git may, then waiting on
    // the fifo: the work tree's Gemfile.lock read (git hashing it), a lock in .git read, one
    // written.
    const bin = join(repo.root, 'bin')
    mkdirSync(bin)
    symlinkSync('/bin/sh', join(bin, 'git'))
    writeFileSync(join(repo.dir, 'Gemfile.lock'), 'GEM\n')
    writeFileSync(join(repo.dir, '.git', 'read.lock'), 'r\n')
    const script =
      'exec 3<Gemfile.lock 4<.git/read.lock 5>.git/index.lock; read x < lib/.gitattributes'
    const options = { cwd: repo.dir, env: { PATH: process.env.PATH } }
    const error = await refusal(() => gitProcess(join(bin, 'git'), ['-c', script], options))
    expect(error.details).toMatchObject({ rule: 'git-fifo', path: fifo })
    expect(existsSync(join(repo.dir, '.git', 'index.lock'))).toBe(false)
    expect(existsSync(join(repo.dir, 'Gemfile.lock'))).toBe(true)
    expect(existsSync(join(repo.dir, '.git', 'read.lock'))).toBe(true)
  })

  it("stops the run's object reader too (a fifo as the alternates file)", async () => {
    rmSync(fifo)
    fifo = join(repo.dir, '.git', 'objects', 'info', 'alternates')
    mkdirSync(dirname(fifo), { recursive: true })
    execFileSync('mkfifo', [fifo])
    const git = await Git.open(repo.dir)
    try {
      const error = await refusal(() => git.objects.read('HEAD', 'lib/a.txt'))
      expect(error.details).toMatchObject({ rule: 'git-fifo', path: fifo })
    } finally {
      git.objects.close()
    }
  })

  it.each([
    ['an include of /proc/self/pagemap', '[include]\n\tpath = /proc/self/pagemap\n', ''],
    ['an include of /proc/self/mem (no read succeeds)', '[include]\n\tpath = /proc/self/mem\n', ''],
    ['core.attributesFile = /dev/zero', '[core]\n\tattributesFile = /dev/zero\n', ''],
    ['.git/info/attributes linked to /dev/zero', '', 'info/attributes']
  ])('refuses before git reads it: %s', async (_name, config, link) => {
    rmSync(fifo)
    if (config) writeFileSync(join(repo.dir, '.git', 'config'), config, { flag: 'a' })
    if (link) {
      mkdirSync(join(repo.dir, '.git', 'info'), { recursive: true })
      rmSync(join(repo.dir, '.git', link), { force: true })
      symlinkSync('/dev/zero', join(repo.dir, '.git', link))
    }
    const error = await refusal(async () => (await Git.open(repo.dir)).status())
    expect(error.code).toBe('ENVIRONMENT_ERROR')
    expect(error.details).toMatchObject({ rule: 'git-special-file' })
  })

  it("a config git cannot parse (one it includes too) is the machine's, named: ENVIRONMENT_ERROR git-config-unreadable", async () => {
    rmSync(fifo)
    const included = join(repo.root, 'bad.cfg')
    writeFileSync(included, '[core\n')
    writeFileSync(join(repo.dir, '.git', 'config'), `[include]\n\tpath = ${included}\n`, {
      flag: 'a'
    })
    const error = await refusal(async () => (await Git.open(repo.dir)).status())
    expect(error.code).toBe('ENVIRONMENT_ERROR')
    expect(error.details).toMatchObject({ rule: 'git-config-unreadable' })
    expect(error.message).toContain(included)
  })

  it('refuses before reading it: an include of 400 MB (sparse), and git/attributes of XDG_CONFIG_HOME linked to /dev/zero', async () => {
    rmSync(fifo)
    const big = join(repo.root, 'big.cfg')
    closeSync(openSync(big, 'w'))
    truncateSync(big, 400 * 1024 * 1024)
    writeFileSync(join(repo.dir, '.git', 'config'), `[include]\n\tpath = ${big}\n`, { flag: 'a' })
    const sparse = await refusal(async () => (await Git.open(repo.dir)).status())
    expect(sparse.details).toMatchObject({ rule: 'git-special-file', path: big })
    rmSync(big)
    const xdg = join(repo.root, 'xdg')
    mkdirSync(join(xdg, 'git'), { recursive: true })
    symlinkSync('/dev/zero', join(xdg, 'git', 'attributes'))
    const saved = process.env.XDG_CONFIG_HOME
    process.env.XDG_CONFIG_HOME = xdg
    try {
      const error = await refusal(async () => (await Git.open(repo.dir)).status())
      expect(error.details).toMatchObject({ rule: 'git-special-file' })
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME
      else process.env.XDG_CONFIG_HOME = saved
    }
  })

  it('leaves /dev/null as an ignore or attributes file alone', async () => {
    rmSync(fifo)
    const config = '[core]\n\texcludesFile = /dev/null\n\tattributesFile = /dev/null\n'
    writeFileSync(join(repo.dir, '.git', 'config'), config, { flag: 'a' })
    const status = await (await Git.open(repo.dir)).status()
    expect(status.changed.map((entry) => entry.path)).toEqual(['lib/a.txt'])
  })

  it('leaves a command that does not open the fifo alone', async () => {
    const git = await Git.open(repo.dir)
    const out = await git.exec(['ls-files', '-z'])
    expect(out.stdout.split('\0')).toContain('lib/a.txt')
  })
})
