import { execFileSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ChangeBranch } from '../../src/change/index.js'
import { Git } from '../../src/git/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const FILES = { 'src/greet.txt': 'hello\n', 'README.md': '# Demo\n' }
const GREETING = [
  'diff --git a/src/greet.txt b/src/greet.txt',
  '--- a/src/greet.txt',
  '+++ b/src/greet.txt',
  '@@ -1 +1 @@',
  '-hello',
  '+hello, world',
  ''
].join('\n')
const CREATE = [
  'diff --git a/src/new.txt b/src/new.txt',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/src/new.txt',
  '@@ -0,0 +1 @@',
  '+new',
  ''
].join('\n')

async function started(): Promise<{ repo: TestRepo; git: Git; branch: ChangeBranch }> {
  const repo = createRepo({ files: FILES, prefix: 'unapply' })
  cleanups.push(() => repo.cleanup())
  const git = await Git.open(repo.dir)
  const branch = await ChangeBranch.prepare(git, {
    branch: 'fix/1-greet',
    plannedPaths: ['src/greet.txt', 'src/new.txt']
  })
  await branch.create()
  return { repo, git, branch }
}

describe('ChangeBranch: back to the base between two applies', () => {
  it('unapply puts the base in the work tree without a git process, its index through GIT_INDEX_FILE', async () => {
    const { repo, git, branch } = await started()
    const patch = GREETING + CREATE
    const paths = ['src/greet.txt', 'src/new.txt']
    expect((await branch.apply(patch, paths)).exitCode).toBe(0)
    repo.write('README.md', '# Changed by a command\n')
    const index = join(repo.dir, '.git/index')
    const staged = readFileSync(index)
    const before = git.processCount
    await branch.unapply()
    expect(git.processCount - before).toBe(0)
    expect(repo.read('src/greet.txt')).toBe('hello\n')
    expect(existsSync(join(repo.dir, 'src/new.txt'))).toBe(false)
    // The command's git sees the base: nothing staged, and the work tree as the base index has it.
    const baseIndex = branch.baseIndexFile!
    const asBase = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: repo.dir,
        env: { ...process.env, GIT_INDEX_FILE: baseIndex }
      })
        .toString()
        .trim()
    expect(asBase('status', '--porcelain', '--untracked-files=no')).toBe('M README.md')
    expect(asBase('diff', '--cached', '--name-only')).toBe('')
    // The run's own index was never rewritten.
    expect(readFileSync(index).equals(staged)).toBe(true)
    // Left for the validation watch to judge, as a command left it.
    expect(repo.read('README.md')).toBe('# Changed by a command\n')
    expect((await branch.reapply(patch, paths)).exitCode).toBe(0)
    expect(git.processCount - before).toBe(0)
    expect(branch.baseIndexFile).toBeUndefined()
    expect(repo.read('src/greet.txt')).toBe('hello, world\n')
    expect(repo.read('src/new.txt')).toBe('new\n')
    expect(repo.git('status', '--porcelain').split('\n').sort()).toEqual([
      ' M README.md',
      'A  src/new.txt',
      'M  src/greet.txt'
    ])
    // Gone with the change: the link to the base's index.
    await branch.reset()
    expect(existsSync(baseIndex)).toBe(false)
  })

  it('makes no link to the base index through a .git/patchsmith that is a link', async () => {
    const { repo, git, branch } = await started()
    const elsewhere = join(repo.root, 'elsewhere')
    mkdirSync(elsewhere)
    rmSync(join(repo.dir, '.git/patchsmith'), { recursive: true, force: true })
    symlinkSync(elsewhere, join(repo.dir, '.git/patchsmith'))
    expect((await branch.apply(GREETING, ['src/greet.txt'])).exitCode).toBe(0)
    expect(readdirSync(elsewhere)).toEqual([])
    // No swap: the base check takes git's reset instead.
    const before = git.processCount
    await branch.unapply()
    expect(git.processCount).toBeGreaterThan(before)
    expect(branch.baseIndexFile).toBeUndefined()
    expect(repo.read('src/greet.txt')).toBe('hello\n')
  })

  it('unapply never writes through a link a command put on a planned path', async () => {
    const { repo, branch } = await started()
    expect((await branch.apply(GREETING, ['src/greet.txt'])).exitCode).toBe(0)
    const outside = join(repo.root, 'outside.txt')
    writeFileSync(outside, 'not yours\n')
    rmSync(join(repo.dir, 'src'), { recursive: true })
    symlinkSync(repo.root, join(repo.dir, 'src'))
    writeFileSync(join(repo.root, 'greet.txt'), 'hello, world\n')
    await branch.unapply()
    expect(readFileSync(outside, 'utf8')).toBe('not yours\n')
    expect(readFileSync(join(repo.root, 'greet.txt'), 'utf8')).toBe('hello, world\n')
    expect(lstatSync(join(repo.dir, 'src')).isDirectory()).toBe(true)
    expect(repo.read('src/greet.txt')).toBe('hello\n')
    expect(branch.baseIndexFile).toBeUndefined()
  })

  it('unapply resets to the base when a command changed a planned file', async () => {
    const { repo, branch } = await started()
    expect((await branch.apply(GREETING, ['src/greet.txt'])).exitCode).toBe(0)
    repo.write('src/greet.txt', 'hello, world!!\n')
    repo.write('README.md', '# Changed by a command\n')
    await branch.unapply()
    expect(repo.read('src/greet.txt')).toBe('hello\n')
    expect(repo.read('README.md')).toBe('# Demo\n')
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('reset cleans only paths that had no file: a modified file costs no git clean', async () => {
    const { repo, git, branch } = await started()
    expect((await branch.apply(GREETING, ['src/greet.txt'])).exitCode).toBe(0)
    let before = git.processCount
    await branch.reset()
    expect(git.processCount - before).toBe(1)
    expect(repo.git('status', '--porcelain')).toBe('')
    // A created file that a command took out of the index is untracked after the reset: cleaned.
    expect((await branch.apply(CREATE, ['src/new.txt'])).exitCode).toBe(0)
    repo.git('rm', '-q', '--cached', 'src/new.txt')
    before = git.processCount
    await branch.reset()
    expect(git.processCount - before).toBe(2)
    expect(existsSync(join(repo.dir, 'src/new.txt'))).toBe(false)
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})
