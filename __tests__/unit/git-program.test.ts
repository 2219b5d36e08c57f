/**
 * git's path is looked up once, and every git command of the run starts from it with the work
 * tree as its working directory: a relative PATH entry (bin, node_modules/.bin) would name a
 * folder there, which validation writes.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { gitProgram } from '../../src/git/git-seal.js'

it('takes git from no relative PATH entry, even when one holds a git', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-git-program-'))
  const saved = { path: process.env.PATH, cwd: process.cwd() }
  try {
    mkdirSync(join(dir, 'bin'))
    writeFileSync(join(dir, 'bin', 'git'), '#!/bin/sh\nexec /usr/bin/git "$@"\n')
    chmodSync(join(dir, 'bin', 'git'), 0o755)
    process.chdir(dir)
    process.env.PATH = `bin:${saved.path}`
    const git = await gitProgram()
    expect(git).toMatch(/^\/.*\/git$/)
  } finally {
    process.env.PATH = saved.path
    process.chdir(saved.cwd)
    rmSync(dir, { recursive: true, force: true })
  }
})
