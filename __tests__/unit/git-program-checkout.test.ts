/**
 * git's PATH is looked up once per process (so this file has a process of its own): never from
 * an absolute PATH entry into the repository worked on or the checkout the run starts in,
 * where a committed or rewritten `bin/git` would run on the host.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { gitProgram } from '../../src/git/git-seal.js'

it('takes git from no absolute PATH entry into the checkout it starts in, nor into the repository given (a CLI run with --repo elsewhere), even by a link there (attack round 14)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-git-program-'))
  const [checkout, repo] = [join(root, 'checkout'), join(root, 'repo')]
  const saved = { path: process.env.PATH, cwd: process.cwd() }
  try {
    for (const dir of [checkout, repo]) {
      mkdirSync(join(dir, 'bin'), { recursive: true })
      writeFileSync(join(dir, 'bin', 'git'), '#!/bin/sh\nexec /usr/bin/git "$@"\n')
      chmodSync(join(dir, 'bin', 'git'), 0o755)
    }
    process.chdir(checkout)
    process.env.PATH = `${join(checkout, 'bin')}:${join(repo, 'bin')}:${saved.path}`
    // Started in the checkout: its bin is passed over, the repository's is all that is left.
    expect(await gitProgram()).toBe(join(repo, 'bin', 'git'))
    const git = await gitProgram(repo)
    expect(git.startsWith(root)).toBe(false)
    expect(git).toMatch(/^\/.*\/git$/)
    // Started elsewhere, working on the repository: neither is taken.
    process.chdir(tmpdir())
    expect((await gitProgram(checkout)).startsWith(root)).toBe(false)
  } finally {
    process.env.PATH = saved.path
    process.chdir(saved.cwd)
    rmSync(root, { recursive: true, force: true })
  }
})
