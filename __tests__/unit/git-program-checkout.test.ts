/**
 * git's PATH is looked up once per process (so this file has a process of its own): never from
 * an absolute PATH entry into the repository worked on or the checkout the run starts in,
 * where a committed or rewritten `bin/git` would run on the host.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { expect, it } from 'vitest'
import { gitProgram } from '../../src/git/git-seal.js'

it('takes git from no absolute PATH entry into the checkout it starts in, nor into the repository given (a CLI run with --repo elsewhere), even by a link there, nor under /proc (attack rounds 14 and 15)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-git-program-'))
  const [checkout, repo, elsewhere] = ['checkout', 'repo', 'elsewhere'].map((name) =>
    join(root, name)
  )
  const saved = { path: process.env.PATH, cwd: process.cwd() }
  try {
    for (const dir of [checkout, repo]) {
      mkdirSync(join(dir, 'bin'), { recursive: true })
      writeFileSync(join(dir, 'bin', 'git'), '#!/bin/sh\nexec /usr/bin/git "$@"\n')
      chmodSync(join(dir, 'bin', 'git'), 0o755)
    }
    // Looked up by the shell: gitProgram's one lookup of PATH is for the PATH below.
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
    mkdirSync(elsewhere)
    symlinkSync(dirname(real), join(elsewhere, 'bin'))
    process.chdir(checkout)
    // `/proc/self/cwd/bin` is the work tree's bin in a git started there, whatever it is here.
    const entries = ['/proc/self/cwd/bin', join(checkout, 'bin'), join(repo, 'bin')]
    process.env.PATH = `${entries.join(':')}:${saved.path}`
    // Started in the checkout: its bin is passed over, the repository's is all that is left.
    expect(await gitProgram()).toBe(join(repo, 'bin', 'git'))
    const git = await gitProgram(repo)
    expect(git.startsWith(root)).toBe(false)
    expect(git).toMatch(/^\/.*\/git$/)
    // Started elsewhere, working on the checkout: /proc/self/cwd/bin, the real git's folder
    // from here, is passed over too.
    process.chdir(elsewhere)
    expect(await gitProgram(checkout)).toBe(join(repo, 'bin', 'git'))
  } finally {
    process.env.PATH = saved.path
    process.chdir(saved.cwd)
    rmSync(root, { recursive: true, force: true })
  }
})
