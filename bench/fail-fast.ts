/**
 * bench:fail-fast — how long a run takes to fail, per error code, against the fastest it could.
 * Each scenario is a real run of the action (in-process, from source: loopback model and GitHub
 * servers, a real repository with a bare origin, real git and sandbox) that must fail with one
 * code. Printed beside each: the wall time, the model calls it spent and the calls it needed at
 * the least (0 for anything a run can know before asking the model), and the validation runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hostileRun, type HostileOptions } from '../__tests__/security/hostile-run.js'
import { startGitHttpServer } from '../__tests__/support/git-http-server.js'
import { printFigure } from './lib/report.js'

interface Scenario {
  code: string
  what: string
  /** The model calls the run cannot do without (the first draft, when the failure is its output). */
  neededCalls: number
  options: () => HostileOptions | Promise<HostileOptions>
}

const closeAfter: Array<() => Promise<void>> = []

const DIFF_A_JS =
  '--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-export const a = 1\n+export const a = 2\n'

const scenarios: Scenario[] = [
  {
    code: 'INVALID_INPUT',
    what: 'no API key for api.openai.com',
    neededCalls: 0,
    options: () => ({ inputs: { 'api-key': '', 'base-url': 'https://api.openai.com/v1' } })
  },
  {
    code: 'INVALID_INPUT',
    what: 'a PNG in the plan',
    neededCalls: 0,
    options: () => ({
      changes: [{ path: 'logo.png', operation: 'MODIFY' }],
      setup: (repo) => {
        writeFileSync(join(repo.dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]))
        repo.commitAll('logo')
      }
    })
  },
  {
    code: 'SECURITY_VIOLATION',
    what: 'a path out of the repository',
    neededCalls: 0,
    options: () => ({ changes: [{ path: '../outside/target.txt', operation: 'MODIFY' }] })
  },
  {
    code: 'BRANCH_EXISTS',
    what: 'the plan branch holds another change on origin',
    neededCalls: 0,
    options: () => ({
      setup: (repo) => {
        repo.git('checkout', '-q', '-b', 'fix/5-hostile')
        repo.write('other.txt', 'other\n')
        repo.commitAll('another change')
        repo.git('push', '-q', 'origin', 'fix/5-hostile')
        repo.git('checkout', '-q', 'main')
        repo.git('branch', '-q', '-D', 'fix/5-hostile')
      }
    })
  },
  {
    code: 'GIT_CONFLICT',
    what: 'a merge in progress',
    neededCalls: 0,
    options: () => ({
      setup: (repo) => {
        repo.git('checkout', '-q', '-b', 'side')
        repo.write('side.txt', 'side\n')
        repo.commitAll('side')
        repo.git('checkout', '-q', 'main')
        repo.git(
          '-c',
          'user.name=b',
          '-c',
          'user.email=b@e',
          'merge',
          '-q',
          '--no-ff',
          '--no-commit',
          'side'
        )
      }
    })
  },
  {
    code: 'GIT_CONFLICT',
    what: 'another run holds the work tree',
    neededCalls: 0,
    options: () => ({
      setup: (repo) => {
        mkdirSync(join(repo.dir, '.git/patchsmith'), { recursive: true })
        writeFileSync(
          join(repo.dir, '.git/patchsmith/lock'),
          JSON.stringify({ pid: process.pid, started: new Date().toISOString() })
        )
      }
    })
  },
  {
    code: 'PERMISSION_DENIED',
    what: 'origin cannot be reached',
    neededCalls: 0,
    options: () => ({
      setup: (repo) => repo.git('remote', 'set-url', 'origin', join(repo.root, 'gone.git'))
    })
  },
  {
    code: 'PERMISSION_DENIED',
    what: 'a token that may read origin but not push',
    neededCalls: 0,
    options: () => ({
      setup: (repo) => {
        // The HTTP remote is started below, once the repository exists; see pushRefused.
        repo.git('remote', 'set-url', 'origin', pushRefused.url)
      },
      inputs: { 'github-token': 'ghs_readonly000000000000000000000000' },
      env: () => ({ GITHUB_SERVER_URL: pushRefused.origin })
    })
  },
  {
    code: 'INVALID_DIFF',
    what: 'every reply names the wrong lines',
    neededCalls: 1,
    options: () => ({
      reply: '--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-nothing like this\n+x\n'
    })
  },
  {
    code: 'VALIDATION_FAILED',
    what: 'the same failure is already on the base',
    neededCalls: 1,
    options: () => ({
      changes: [{ path: 'src/a.js', operation: 'MODIFY' }],
      reply: DIFF_A_JS,
      inputs: { 'validation-commands': 'echo "expected 3, got 2" >&2; exit 1', 'max-repairs': '3' }
    })
  },
  {
    code: 'VALIDATION_FAILED',
    what: 'a command that hangs until command-timeout',
    neededCalls: 1,
    options: () => ({
      changes: [{ path: 'src/a.js', operation: 'MODIFY' }],
      reply: DIFF_A_JS,
      inputs: { 'validation-commands': 'sleep 60', 'command-timeout': '2' }
    })
  }
]

// A smart-HTTP origin that lets every token read and none push (GitHub's answer to a
// GITHUB_TOKEN without contents: write), serving a bare copy made here.
const pushRefused = await (async () => {
  const { execFileSync } = await import('node:child_process')
  const { mkdtempSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const dir = mkdtempSync(join(tmpdir(), 'fail-fast-http-'))
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', join(dir, 'origin.git')])
  const server = await startGitHttpServer(join(dir, 'origin.git'), { writeTokens: [] })
  closeAfter.push(() => server.close())
  return server
})()

let allOk = true
console.log(
  'bench:fail-fast — each run fails with its code; model calls against the least needed\n'
)
for (const scenario of scenarios) {
  const started = Date.now()
  const hostile = await hostileRun(await scenario.options())
  const ms = Date.now() - started
  const code = hostile.result.error?.code ?? 'none'
  const calls = hostile.model.requests.length
  const commands = hostile.result.error?.details?.validation_results
  await hostile.model.close()
  await hostile.github.close()
  hostile.repo.cleanup()
  const label = `${scenario.code}: ${scenario.what}`
  if (code !== scenario.code) {
    console.log(`${label.padEnd(70)} failed as ${code} instead`)
    allOk = false
    continue
  }
  allOk =
    printFigure({
      name: `${label} (${ms} ms${Array.isArray(commands) ? `, ${commands.length} command runs` : ''})`.slice(
        0,
        96
      ),
      value: calls,
      unit: 'calls',
      anchor: { max: scenario.neededCalls, label: 'least needed' }
    }) && allOk
}
for (const close of closeAfter) await close()
console.log(
  allOk ? '\nevery code failed as fast as it could' : '\nsome runs failed later than they could'
)
