/**
 * A git command line longer than the kernel takes is refused at once, naming the subcommand
 * (spawn's E2BIG names none); a git that exits before it reads its input ends as it ended.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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

it('gives the exit code of a git that ends before it reads its input, instead of crashing', async () => {
  const cwd = repo()
  await gitProcess('git', ['init', '-q', cwd], { cwd, env: { PATH: process.env.PATH } })
  // git stops at the config before it reads a byte; the input is more than a pipe holds, so
  // writing it meets the closed pipe (EPIPE), which crashed the process before.
  writeFileSync(join(cwd, '.git', 'config'), '[core\n')
  const input = Buffer.alloc(4 * 1024 * 1024, 'x')
  for (const long of [false, true]) {
    const run = await gitProcess('git', ['apply', '--cached', '-'], {
      cwd,
      env: { PATH: process.env.PATH },
      input,
      long
    })
    expect(run.exitCode).toBe(128)
    expect(run.stderr).toContain('bad config')
  }
})
