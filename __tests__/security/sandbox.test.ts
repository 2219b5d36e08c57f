/**
 * Issue 12's attacks, through the bundled action with the sandbox really in use: validation
 * code that walks /proc for the action's secrets, leaves a setsid daemon behind, commits or
 * moves refs, rewrites git's config, index or stash, writes the runner's file commands, or
 * leaves files for the pull-request step, or tries to take root's powers back (remount, unmount,
 * sudo). Each ends in a clean refusal or a harmless no-op. A backend missing here skips
 * (support/sandbox-needs.ts) unless PATCHSMITH_REQUIRE_SANDBOX=1.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CANARY, leakedCanaries, type HostileOptions, type HostileRun } from './hostile-run.js'
import { trackedHostileRuns } from './tracked-runs.js'
import { processesRunning } from '../support/processes.js'
import type { TestRepo } from '../support/repo.js'
import { skipWithout } from '../support/sandbox-needs.js'

const tracked = trackedHostileRuns()

async function run(options: HostileOptions, backends?: string): Promise<HostileRun> {
  const hostile = await tracked({
    ...options,
    env: (repo) => ({
      ...(backends ? { PATCHSMITH_SANDBOX_BACKENDS: backends } : {}),
      ...options.env?.(repo)
    })
  })
  return hostile
}

function expectCommitted(hostile: HostileRun): void {
  const { result, run: action } = hostile
  expect(result.success, JSON.stringify(result.error)).toBe(true)
  expect(action.exitCode).toBe(0)
  expect(leakedCanaries(hostile)).toEqual([])
}

/** Every /proc entry's environment and command line, reversed and spaced out (past a masker). */
const PROC_WALK =
  'for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do ' +
  "tr '\\0' '\\n' < \"$f\" 2>/dev/null | rev; tr '\\0' '\\n' < \"$f\" 2>/dev/null | sed 's/./& /g'; " +
  'done; env | rev; true'

describe.each(['bubblewrap', 'unshare'] as const)('validation in the %s sandbox', (backend) => {
  const skip = skipWithout(backend)

  it.skipIf(skip)('walks /proc and the environment and finds no secret of the action', async () => {
    // Through the bundled action: its own process's /proc entries are what the walk looks for.
    const hostile = await run(
      { inputs: { 'validation-commands': PROC_WALK }, through: 'process' },
      backend
    )
    expect(hostile.result.metrics?.sandbox).toBe(backend)
    expectCommitted(hostile)
    expect(hostile.result.data![0]!.validation_results[0]!.exit_code).toBe(0)
  })

  it.skipIf(skip)(
    'cannot leave a setsid daemon to change the commit, git config or workflows later',
    async () => {
      const marker = `patchsmith-daemon-${backend}-${process.pid}`
      const daemon =
        `setsid sh -c 'sleep 1; while :; do echo "on: push # pwned" > .github/workflows/ci.yml; ` +
        `echo x > .env; git add -A; git config core.sshCommand "touch pwned"; sleep 0.05; done; : ${marker}' ` +
        '>/dev/null 2>&1 </dev/null & true'
      const hostile = await run({ inputs: { 'validation-commands': daemon } }, backend)
      expect(hostile.result.metrics?.sandbox).toBe(backend)
      expectCommitted(hostile)
      expect(processesRunning(marker)).toEqual([])
      const { repo } = hostile
      expect(repo.gitOrigin('diff', '--name-only', 'main', 'fix/5-hostile')).toBe('README.md')
      expect(readFileSync(join(repo.dir, '.github/workflows/ci.yml'), 'utf8')).toBe('on: push\n')
      expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).toBe(hostile.before.config)
    }
  )

  it.skipIf(skip)(
    "cannot take root's powers back: no remount of .git, no unmount of the runner's files, no sudo",
    async () => {
      const attack = [
        'mount -o remount,rw .git 2>/dev/null; printf "[core]\\n\\tsshCommand = touch pwned\\n" >> .git/config 2>/dev/null',
        'for m in $(awk \'$5 ~ /runner|_temp|file_commands/ {print $5}\' /proc/self/mountinfo); do umount "$m" 2>/dev/null; done',
        'for f in $(find / -path "*_runner_file_commands/*" -type f 2>/dev/null); do echo NODE_OPTIONS=--require=/x >> "$f"; done',
        'sudo -n sh -c "echo pwned >> /etc/hostname" 2>/dev/null',
        'true'
      ].join('; ')
      const hostile = await run({ inputs: { 'validation-commands': attack } }, backend)
      expect(hostile.result.metrics?.sandbox).toBe(backend)
      expectCommitted(hostile)
      expect(readFileSync(join(hostile.repo.dir, '.git/config'), 'utf8')).toBe(
        hostile.before.config
      )
      expect(hostile.run.fileCommands).toEqual({ env: '', path: '' })
      expect(readFileSync('/etc/hostname', 'utf8')).not.toContain('pwned')
    }
  )
})

describe('validation in the sandbox (default backend)', () => {
  it('cannot commit, move HEAD or a branch, drop the stash, or rewrite the index or config', async () => {
    const attack = [
      'git -c user.name=x -c user.email=x@y commit -qam sneaky',
      'git update-ref refs/heads/main HEAD',
      'git symbolic-ref HEAD refs/heads/main',
      'git stash clear',
      "printf '[core]\\n\\tsshCommand = touch pwned\\n' >> .git/config",
      'rm -f .git/index',
      'true'
    ].join('; ')
    const hostile = await run({
      setup(repo) {
        writeFileSync(join(repo.dir, 'src/a.js'), 'export const a = 2\n')
        repo.git('stash', 'push', '--quiet', '--message', 'mine')
      },
      inputs: { 'validation-commands': attack }
    })
    expectCommitted(hostile)
    const { repo } = hostile
    const base = repo.gitOrigin('rev-parse', 'main')
    expect(repo.gitOrigin('rev-list', '--parents', `main..fix/5-hostile`)).toMatch(
      new RegExp(`^[0-9a-f]{40} ${base}$`)
    )
    expect(repo.git('stash', 'list')).toContain('mine')
    expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).toBe(hostile.before.config)
  })

  it("cannot write the runner's file commands (GITHUB_ENV, GITHUB_PATH)", async () => {
    const attack =
      'for f in "$GITHUB_ENV" "$GITHUB_PATH" $(find /tmp -path "*_runner_file_commands/*" -type f 2>/dev/null); do ' +
      'echo NODE_OPTIONS=--require=/tmp/evil.js >> "$f"; done 2>/dev/null; true'
    const hostile = await run({ inputs: { 'validation-commands': attack } })
    expectCommitted(hostile)
    expect(hostile.run.fileCommands).toEqual({ env: '', path: '' })
    // The attempt logs are the runner user's alone.
    expect(statSync(hostile.logDir).mode & 0o777).toBe(0o700)
    const logs = readdirSync(hostile.logDir)
    expect(logs.length).toBeGreaterThan(0)
    for (const name of logs) expect(statSync(join(hostile.logDir, name)).mode & 0o777).toBe(0o600)
  })

  it('hands over a work tree that is exactly the commit (push: false), and the build output validation-keep names', async () => {
    const attack =
      'echo junk > junk.txt; mkdir -p dist && echo built > dist/out.js; echo "export const a = 9" > src/a.js'
    const hostile = await run({
      inputs: {
        'validation-commands': attack,
        push: 'false',
        settings: 'validation-keep: dist/**'
      }
    })
    expectCommitted(hostile)
    const { repo } = hostile
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    expect(readFileSync(join(repo.dir, 'src/a.js'), 'utf8')).toBe('export const a = 1\n')
    expect(readFileSync(join(repo.dir, 'dist/out.js'), 'utf8')).toBe('built\n')
    expect(repo.git('show', '--name-only', '--format=', 'HEAD')).toBe('README.md')
  })
})

describe('a machine without a sandbox', () => {
  it('auto on GitHub Actions: refuses before any model call, naming the fix', async () => {
    const hostile = await run({ inputs: { 'validation-commands': 'true' } }, 'none')
    const { result, run: action, model } = hostile
    expect(result.error?.code).toBe('SECURITY_VIOLATION')
    expect(result.error?.details?.rule).toBe('sandbox-unavailable')
    expect(result.error?.message).toContain('sudo apt-get install -y bubblewrap')
    expect(result.error?.message).toContain('sandbox: off')
    expect(action.exitCode).toBe(1)
    expect(model.requests).toHaveLength(0)
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
  })

  it('auto outside GitHub Actions (a workstation): runs, and says so in the log and the summary', async () => {
    const hostile = await tracked({
      inputs: { 'validation-commands': 'true' },
      env: () => ({ PATCHSMITH_SANDBOX_BACKENDS: 'none', GITHUB_ACTIONS: '' })
    })
    expectCommitted(hostile)
    expect(hostile.result.metrics?.sandbox).toBe('none')
    expect(hostile.run.stdout).toMatch(/::warning::.*No sandbox works on this machine/)
    expect(hostile.run.summary).toContain('Validation commands ran without a sandbox')
  })

  it('required: refuses with SECURITY_VIOLATION before any model call, nothing written', async () => {
    const hostile = await run(
      { inputs: { 'validation-commands': 'true', sandbox: 'required' } },
      'none'
    )
    const { result, run: action, model } = hostile
    expect(result.error?.code).toBe('SECURITY_VIOLATION')
    expect(result.error?.details?.rule).toBe('sandbox-unavailable')
    expect(action.exitCode).toBe(1)
    expect(model.requests).toHaveLength(0)
    expect(hostile.repo.git('status', '--porcelain')).toBe('')
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
  })
})

describe('sealed git for remote commands', () => {
  it.each([
    ['remote.origin.receivepack', 'sh -c "touch ../pwned" #'],
    ['core.sshCommand', 'touch ../pwned #'],
    ['url.file:///nowhere/.insteadOf', 'file://'],
    ['credential.helper', '!touch ../pwned #']
  ])('refuses a repository whose config sets %s, running nothing', async (key, value) => {
    const hostile = await run({ setup: (repo) => repo.git('config', key, value) })
    expect(hostile.result.error?.code).toBe('SECURITY_VIOLATION')
    expect(hostile.result.error?.details?.rule).toBe('unsafe-git-config')
    expect(hostile.result.error?.message).toContain(key.toLowerCase().split('.')[0])
    expect(existsSync(join(hostile.repo.root, 'pwned'))).toBe(false)
    expect(hostile.repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
    expect(leakedCanaries(hostile)).toEqual([])
  })
})

describe('opt-in git hooks in the sandbox', () => {
  const hook = (body: string) => (repo: TestRepo) => {
    const path = join(repo.dir, '.git/hooks/pre-commit')
    writeFileSync(path, `#!/bin/sh\n${body}\n`)
    chmodSync(path, 0o755)
  }

  it('run with the commit and see no secret', async () => {
    // What the hook sees, written where the run leaves it (COMMIT_EDITMSG, which git itself
    // writes: anything else a hook adds to .git is taken away after it).
    const seen =
      "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done >> .git/COMMIT_EDITMSG 2>/dev/null\n" +
      'env >> .git/COMMIT_EDITMSG'
    const hostile = await run({
      setup: (repo) => {
        const path = join(repo.dir, '.git/hooks/post-commit')
        writeFileSync(path, `#!/bin/sh\n${seen}\n`)
        chmodSync(path, 0o755)
      },
      inputs: { 'git-hooks': 'true' }
    })
    // The first backend that works here (bubblewrap where installed, else unshare as root).
    expect(['bubblewrap', 'unshare', 'sudo-unshare']).toContain(hostile.result.metrics?.sandbox)
    expectCommitted(hostile)
    const leak = readFileSync(join(hostile.repo.dir, '.git/COMMIT_EDITMSG'), 'utf8')
    expect(leak).toContain('PATH=')
    for (const canary of Object.values(CANARY)) expect(leak).not.toContain(canary)
    expect(leakedCanaries(hostile)).toEqual([])
  })

  it('a hook that writes a filter into .git/config and info/attributes, rewrites the approved file or stages an unplanned one is refused; .git put back, nothing pushed', async () => {
    for (const body of [
      'git config filter.evil.smudge "touch ../pwned; cat"\necho "* filter=evil" >> .git/info/attributes',
      'printf "pwned\\n" > README.md\ngit add README.md',
      // An unplanned file slipped into the commit: its tree is not the approved index.
      'env > leak.txt\ngit add leak.txt'
    ]) {
      const hostile = await run({ setup: hook(body), inputs: { 'git-hooks': 'true' } })
      const { repo, before } = hostile
      expect(hostile.result.error?.code).toBe('SECURITY_VIOLATION')
      expect(hostile.result.error?.details?.rule).toBe('hook-tampered')
      expect(repo.gitOrigin('branch', '--list', 'fix/5-hostile')).toBe('')
      expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).toBe(before.config)
      expect(existsSync(join(repo.dir, '.git/info/attributes'))).toBe(false)
      expect(repo.git('rev-parse', 'HEAD')).toBe(before.head)
      expect(repo.git('status', '--porcelain')).toBe('')
      expect(existsSync(join(repo.root, 'pwned'))).toBe(false)
    }
  })

  it('commit the approved change when they only check it', async () => {
    const hostile = await run({
      setup: hook('git diff --cached --name-only | grep -qx README.md'),
      inputs: { 'git-hooks': 'true' }
    })
    expectCommitted(hostile)
    const { repo } = hostile
    expect(repo.gitOrigin('diff', '--name-only', 'main', 'fix/5-hostile')).toBe('README.md')
    expect(repo.gitOrigin('log', '-1', '--format=%an', 'fix/5-hostile')).not.toBe('')
  })
})
