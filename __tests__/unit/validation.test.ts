import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, it, expect } from 'vitest'
import {
  truncateMiddle,
  runCommand,
  type CommandRunnerOptions
} from '../../src/validation/index.js'
import { SecretMasker } from '../../src/secrets/index.js'
import { validationEnv } from '../../src/sandbox/index.js'
import { processesIn } from '../support/processes.js'
import { until } from '../support/until.js'

const cwd = mkdtempSync(join(tmpdir(), 'patchsmith-validation-'))
afterAll(() => rmSync(cwd, { recursive: true, force: true }))

function options(overrides: Partial<CommandRunnerOptions> = {}): CommandRunnerOptions {
  return { cwd, timeoutMs: 30_000, outputLimit: 1000, masker: new SecretMasker(), ...overrides }
}

/** `ps` output lines (`pid stat`) for the given selector, without zombies: a killed process
 * whose parent is gone may stay a zombie where PID 1 does not reap, but it runs nothing. */
function living(...selector: string[]): string[] {
  let out = ''
  try {
    out = execFileSync('ps', ['-o', 'pid=,stat=', ...selector], { encoding: 'utf8' })
  } catch {
    return [] // ps exits 1 when nothing matches
  }
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^\d+\s+Z/.test(line))
}

async function waitUntilGone(...selector: string[]): Promise<string[]> {
  await until(() => living(...selector).length === 0, 'the process to end').catch(() => undefined)
  return living(...selector)
}

describe('runCommand', () => {
  it('captures the exit code, stdout and stderr', async () => {
    const result = await runCommand('echo out; echo err >&2; exit 3', options())
    expect(result.exit_code).toBe(3)
    expect(result.stdout).toBe('out\n')
    expect(result.stderr).toBe('err\n')
    expect(result.command).toBe('echo out; echo err >&2; exit 3')
    expect(result.timedOut).toBe(false)
    expect(result.duration_ms).toBeGreaterThanOrEqual(0)
    const ok = await runCommand('true', options())
    expect(ok.exit_code).toBe(0)
  })

  it('runs in the given working directory', async () => {
    const result = await runCommand('pwd', options())
    expect(result.stdout.trim()).toBe(execFileSync('pwd', { cwd, encoding: 'utf8' }).trim())
  })

  it('reports 127 for a command that does not exist', async () => {
    const result = await runCommand('definitely-not-a-command-patchsmith', options())
    expect(result.exit_code).toBe(127)
  })

  it('strips ANSI escape sequences', async () => {
    const result = await runCommand(
      "printf '\\033[31mred\\033[0m \\033[1;32mbold green\\033[0m\\n'; printf '\\033[33mwarn\\033[0m\\n' >&2",
      options()
    )
    expect(result.stdout).toBe('red bold green\n')
    expect(result.stderr).toBe('warn\n')
    expect(result.stdout).not.toContain('\u001b')
  })

  it('keeps the head and the tail of long output with a visible marker', async () => {
    const result = await runCommand(
      'echo HEAD-MARK; seq 1 20000; echo TAIL-MARK',
      options({ outputLimit: 500 })
    )
    expect(result.stdout.length).toBeLessThanOrEqual(500)
    expect(result.stdout.startsWith('HEAD-MARK\n1\n2\n')).toBe(true)
    expect(result.stdout.endsWith('19999\n20000\nTAIL-MARK\n')).toBe(true)
    expect(result.stdout).toMatch(/\[\d+ characters truncated\]/)
  })

  it('does not truncate output within the limit', async () => {
    const result = await runCommand('seq 1 50', options({ outputLimit: 1000 }))
    expect(result.stdout).not.toContain('truncated')
    expect(result.stdout.split('\n')).toHaveLength(51)
  })

  it('finishes a command printing 50 MB with a bounded result', async () => {
    const result = await runCommand('yes | head -c 50000000; echo; echo END', options())
    expect(result.exit_code).toBe(0)
    expect(result.stdout.length).toBeLessThanOrEqual(1000)
    expect(result.stdout.startsWith('y\ny\n')).toBe(true)
    expect(result.stdout.endsWith('END\n')).toBe(true)
    const found = /\n… \[(\d+) characters truncated\] …\n/.exec(result.stdout)
    expect(found).not.toBeNull()
    // The marker counts what was really dropped, not what was left after the read cap.
    const kept = result.stdout.length - found![0].length
    expect(Number(found![1])).toBe(50_000_000 + '\nEND\n'.length - kept)
  })

  it('kills the whole process group at the timeout', async () => {
    const pidFile = join(cwd, 'child.pid')
    const groupFile = join(cwd, 'group.pid')
    const result = await runCommand(
      // Each file written whole or not at all (a kill between `>` and the write left it empty).
      `echo $$ > ${groupFile}.new && mv ${groupFile}.new ${groupFile}; sleep 300 & echo $! > ${pidFile}.new && mv ${pidFile}.new ${pidFile}; sleep 300`,
      { ...options(), timeoutMs: 1000 }
    )
    expect(result.exit_code).toBe(124)
    expect(result.timedOut).toBe(true)
    expect(result.stderr).toContain('Killed after 1000 ms')
    // Whatever the command had started (in this test's folder) is gone. A loaded machine may
    // reach the timeout before the shell has written both files: those it wrote name the rest.
    await until(() => processesIn(cwd).length === 0, 'the group to be gone')
    for (const file of [groupFile, pidFile].filter((path) => existsSync(path))) {
      const pid = Number(readFileSync(file, 'utf8').trim())
      expect(pid).toBeGreaterThan(0)
      expect(living('-p', String(pid))).toEqual([])
    }
  })

  it('leaves no process of the group behind when the shell exits first', async () => {
    const pidFile = join(cwd, 'bg.pid')
    // Without the group kill it would wait for the background sleep's 300 s.
    const result = await runCommand(`sleep 300 & echo $! > ${pidFile}; echo done`, options())
    expect(result.exit_code).toBe(0)
    expect(result.stdout).toBe('done\n')
    const childPid = Number(readFileSync(pidFile, 'utf8').trim())
    expect(await waitUntilGone('-p', String(childPid))).toEqual([])
  })

  it('has a process check that sees living processes (so the checks above can fail)', () => {
    expect(living('-p', String(process.pid))).toHaveLength(1)
  })

  it('masks secrets in its output', async () => {
    const masker = new SecretMasker()
    masker.add('hunter2-secret-value')
    const result = await runCommand(
      'echo token=hunter2-secret-value; echo hunter2-secret-value >&2',
      options({ masker })
    )
    expect(result.stdout).toBe('token=***\n')
    expect(result.stderr).toBe('***\n')
  })
})

describe('validationEnv (the allowlist)', () => {
  const parent = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/runner',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    CI: 'true',
    GOPATH: '/home/runner/go',
    npm_config_cache: '/home/runner/.npm',
    npm_config__authToken: 'npm_secret',
    JAVA_HOME_17_X64: '/opt/java/17',
    GITHUB_TOKEN: 'ghs_x',
    GITHUB_ENV: '/home/runner/work/_temp/_runner_file_commands/set_env',
    GITHUB_PATH: '/home/runner/work/_temp/_runner_file_commands/add_path',
    GITHUB_OUTPUT: '/o',
    GITHUB_STATE: '/s',
    GITHUB_STEP_SUMMARY: '/ss',
    OPENAI_API_KEY: 'sk-x',
    'INPUT_API-KEY': 'sk-y',
    ACTIONS_RUNTIME_TOKEN: 'rt',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'idt',
    DATABASE_URL: 'postgres://u:p@db/x',
    DEPLOY_KEY: 'k',
    GH_PAT: 'ghp_x',
    SLACK_WEBHOOK_URL: 'https://hooks.slack.com/x',
    AWS_ACCESS_KEY_ID: 'AKIA',
    NODE_OPTIONS: '--require=/x.js'
  }

  it('passes the toolchain and locale, and nothing it does not know', () => {
    expect(Object.keys(validationEnv(parent)).sort()).toEqual([
      'CI',
      'GOPATH',
      'HOME',
      'JAVA_HOME_17_X64',
      'LANG',
      'LC_ALL',
      'PATH',
      'PYTHONDONTWRITEBYTECODE',
      'npm_config_cache',
      'npm_config_update_notifier'
    ])
  })

  it("turns npm's update check off, which the closed network cannot answer, unless set", () => {
    expect(validationEnv(parent).npm_config_update_notifier).toBe('false')
    const own = { NPM_CONFIG_UPDATE_NOTIFIER: 'true' }
    expect(validationEnv(own, ['NPM_CONFIG_UPDATE_NOTIFIER'])).not.toHaveProperty(
      'npm_config_update_notifier'
    )
    expect(validationEnv({ npm_config_update_notifier: 'true' })).toMatchObject({
      npm_config_update_notifier: 'true'
    })
  })

  it('keeps Python from running stale bytecode after the base check swaps a file back', () => {
    expect(validationEnv(parent).PYTHONDONTWRITEBYTECODE).toBe('1')
    expect(
      validationEnv({ PYTHONDONTWRITEBYTECODE: '' }, ['PYTHONDONTWRITEBYTECODE'])
    ).toMatchObject({
      PYTHONDONTWRITEBYTECODE: ''
    })
  })

  it('adds the names validation-env lists', () => {
    const env = validationEnv(parent, ['DATABASE_URL', 'NOT_SET'])
    expect(env.DATABASE_URL).toBe(parent.DATABASE_URL)
    expect(env).not.toHaveProperty('NOT_SET')
    expect(env).not.toHaveProperty('DEPLOY_KEY')
  })

  it('reads process.env when the runner is given no env', async () => {
    const name = 'PATCHSMITH_TEST_DATABASE_URL'
    process.env[name] = 'x'
    try {
      const result = await runCommand('env', options({ outputLimit: 1_000_000 }))
      expect(result.stdout).toContain('PATH=')
      expect(result.stdout).not.toContain(name)
    } finally {
      delete process.env[name]
    }
  })

  it('keeps a canary secret of the parent away from a command', async () => {
    const canary = `canary-${process.pid}-${Date.now()}`
    const env = validationEnv({
      ...process.env,
      PATCHSMITH_CANARY_TOKEN: canary,
      MY_SECRET: canary
    })
    const result = await runCommand('env', options({ env, outputLimit: 1_000_000 }))
    expect(result.exit_code).toBe(0)
    expect(result.stdout).toContain('PATH=')
    expect(result.stdout).not.toContain(canary)
  })

  it('keeps a canary secret away from a command when no env is given', async () => {
    const canary = `canary-default-${process.pid}`
    process.env.PATCHSMITH_CANARY_API_KEY = canary
    try {
      const result = await runCommand('env', options({ outputLimit: 1_000_000 }))
      expect(result.stdout).toContain('PATH=')
      expect(result.stdout).not.toContain(canary)
    } finally {
      delete process.env.PATCHSMITH_CANARY_API_KEY
    }
  })
})

describe('truncateMiddle', () => {
  const text = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n')

  it('returns text within the limit unchanged', () => {
    expect(truncateMiddle(text, text.length)).toBe(text)
  })

  it.each([100, 333, 5000])(
    'keeps head and tail within %i characters and counts the cut',
    (limit) => {
      const result = truncateMiddle(text, limit)
      expect(result.length).toBeLessThanOrEqual(limit)
      const found = /\n… \[(\d+) characters truncated\] …\n/.exec(result)!
      const head = result.slice(0, found.index)
      const tail = result.slice(found.index + found[0].length)
      expect(text.startsWith(head)).toBe(true)
      expect(text.endsWith(tail)).toBe(true)
      expect(head.length).toBeGreaterThan(0)
      expect(Number(found[1])).toBe(text.length - head.length - tail.length)
    }
  )
})

describe('SecretMasker', () => {
  const secret = 'p@ss w/rd&token=42'

  it('masks the raw, base64 and URL-encoded forms', () => {
    const masker = new SecretMasker()
    masker.add(secret)
    const base64 = Buffer.from(secret).toString('base64')
    const url = encodeURIComponent(secret)
    expect(url).not.toBe(secret)
    const masked = masker.mask(`raw ${secret} b64 ${base64} url ${url} end`)
    expect(masked).toBe('raw *** b64 *** url *** end')
  })

  it('masks every occurrence and leaves other text alone', () => {
    const masker = new SecretMasker()
    masker.add('abcd1234')
    expect(masker.mask('abcd1234 and abcd1234, not abcd123')).toBe('*** and ***, not abcd123')
  })

  it('ignores empty and very short values', () => {
    const masker = new SecretMasker()
    masker.add(undefined)
    masker.add('')
    masker.add('ab')
    expect(masker.mask('a b ab abc')).toBe('a b ab abc')
  })
})
