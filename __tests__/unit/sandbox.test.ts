/**
 * The sandbox itself, with each Linux backend for real (bubblewrap, and util-linux unshare as
 * root): what a command inside can see, write and leave behind.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Sandbox, validationEnv, type BackendName } from '../../src/sandbox/index.js'
import { runCommand, SecretMasker } from '../../src/validation/index.js'
import { gitDirs } from '../../src/git/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'

const BACKENDS: BackendName[] = ['bubblewrap', 'unshare']

/** Host PIDs whose command line holds `marker` (a daemon that outlived its sandbox). */
function hostProcesses(marker: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
        return cmdline.includes(marker) && state !== 'Z'
      } catch {
        return false
      }
    })
}

async function settle(check: () => boolean, tries = 50): Promise<boolean> {
  for (let i = 0; i < tries && !check(); i++) await new Promise((r) => setTimeout(r, 100))
  return check()
}

describe.each(BACKENDS)('the %s sandbox', (backend) => {
  let repo: TestRepo
  let sandbox: Sandbox
  let hidden: string
  const run = (command: string, env: Record<string, string> = {}) =>
    runCommand(command, {
      cwd: repo.dir,
      timeoutMs: 30_000,
      outputLimit: 100_000,
      masker: new SecretMasker(),
      env: { ...validationEnv(process.env), ...env },
      sandbox
    })

  beforeAll(async () => {
    repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'sandbox' })
    hidden = join(repo.root, 'runner-temp')
    mkdirSync(hidden)
    writeFileSync(join(hidden, 'set_env'), '')
    sandbox = await Sandbox.open(
      { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [hidden] },
      [backend]
    )
  })
  afterAll(() => {
    sandbox.dispose()
    repo.cleanup()
  })

  it('is available on this machine (CI installs bubblewrap)', () => {
    expect(sandbox.unavailable).toEqual([])
    expect(sandbox.backend).toBe(backend)
  })

  it('lets the command write the work tree and a private temp folder, not .git', async () => {
    const result = await run(
      'echo x > new.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && ' +
        '(echo bad >> .git/config && echo wrote-config || echo config-read-only) && ' +
        '(git commit -q --allow-empty -m sneaky 2>/dev/null && echo committed || echo no-commit)'
    )
    expect(result.exit_code, result.stderr).toBe(0)
    expect(result.stdout).toContain('config-read-only')
    expect(result.stdout).toContain('no-commit')
    expect(readFileSync(join(repo.dir, 'new.txt'), 'utf8')).toBe('x\n')
    expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).not.toContain('bad')
    expect(repo.git('rev-list', '--count', 'HEAD')).toBe('1')
  })

  it('shows the command its own processes only: no parent environ, no parent cmdline', async () => {
    const result = await run(
      `for p in /proc/[0-9]*; do echo "$p"; done; cat /proc/${process.pid}/environ 2>/dev/null && echo leaked || echo hidden`
    )
    const pids = result.stdout.split('\n').filter((line) => line.startsWith('/proc/'))
    expect(pids.length).toBeLessThanOrEqual(6)
    expect(result.stdout).toContain('hidden')
  })

  it('hides the runner folders: a GITHUB_ENV write lands nowhere', async () => {
    const result = await run(
      `ls -A ${hidden}; echo NODE_OPTIONS=--require=/x >> ${hidden}/set_env; echo done`
    )
    expect(result.stdout.trim()).toBe('done')
    expect(readFileSync(join(hidden, 'set_env'), 'utf8')).toBe('')
  })

  it('kills a setsid daemon when the command ends', async () => {
    const marker = `patchsmith-daemon-${backend}-${process.pid}`
    const result = await run(
      `setsid sh -c 'while :; do date > daemon.txt; sleep 0.05; done; : ${marker}' >/dev/null 2>&1 < /dev/null & sleep 0.3; echo started`
    )
    expect(result.stdout).toContain('started')
    expect(await settle(() => hostProcesses(marker).length === 0)).toBe(true)
    const stamp = readFileSync(join(repo.dir, 'daemon.txt'), 'utf8')
    await new Promise((r) => setTimeout(r, 300))
    expect(readFileSync(join(repo.dir, 'daemon.txt'), 'utf8')).toBe(stamp)
  })

  it('sees the allowlisted environment only', async () => {
    const result = await run('env', { PATCHSMITH_ONLY_IF_LISTED: 'x' })
    expect(result.stdout).toContain('PATH=')
    expect(result.stdout).toContain('PATCHSMITH_ONLY_IF_LISTED=x')
    expect(existsSync(join(repo.dir, '.git'))).toBe(true)
  })
})

describe('Sandbox.open', () => {
  it('reports why no backend works, and runs bare then', async () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'sandbox-none' })
    try {
      const sandbox = await Sandbox.open(
        { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] },
        []
      )
      expect(sandbox.active).toBe(false)
      expect(sandbox.spawnSpec('true', repo.dir, {}).file).toBe('/bin/sh')
    } finally {
      repo.cleanup()
    }
  })
})
