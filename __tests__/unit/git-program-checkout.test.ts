/**
 * git's path is looked up once per process (so this file has a process of its own): never from
 * an absolute PATH entry into the checkout the run starts in, where a committed or rewritten
 * `bin/git` would run on the host.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { gitProgram } from '../../src/git/git-seal.js'

it('takes git from no absolute PATH entry into the checkout it starts in, even by a link there (attack round 14)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-git-program-'))
  const saved = { path: process.env.PATH, cwd: process.cwd() }
  try {
    mkdirSync(join(dir, 'bin'))
    writeFileSync(join(dir, 'bin', 'git'), '#!/bin/sh\nexec /usr/bin/git "$@"\n')
    chmodSync(join(dir, 'bin', 'git'), 0o755)
    process.chdir(dir)
    process.env.PATH = `${join(dir, 'bin')}:${saved.path}`
    const git = await gitProgram()
    expect(git.startsWith(dir)).toBe(false)
    expect(git).toMatch(/^\/.*\/git$/)
  } finally {
    process.env.PATH = saved.path
    process.chdir(saved.cwd)
    rmSync(dir, { recursive: true, force: true })
  }
})
