/**
 * A git command line longer than the kernel takes is refused at once: spawn would throw E2BIG
 * synchronously inside @actions/exec, whose promise then never settles.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { gitProcess } from '../../src/git/git-process.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })))

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-git-process-'))
  dirs.push(dir)
  return dir
}

it('refuses a command line over the limit instead of hanging', async () => {
  const cwd = repo()
  const paths = Array.from({ length: 12_000 }, (_, i) => `${'p'.repeat(200)}-${i}`)
  await expect(
    gitProcess('git', ['init', '-q', '--', ...paths], { cwd, env: { PATH: process.env.PATH } })
  ).rejects.toThrow(/longer than the system allows/)
  await expect(
    gitProcess('git', ['init', '-q', 'x'.repeat(200_000)], { cwd, env: { PATH: process.env.PATH } })
  ).rejects.toThrow(/longer than the system allows/)
})

it('runs one that fits', async () => {
  const cwd = repo()
  const run = await gitProcess('git', ['init', '-q', cwd], { cwd, env: { PATH: process.env.PATH } })
  expect(run.exitCode).toBe(0)
})
