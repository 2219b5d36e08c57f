import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { commitResultSchema, type CodeAgentOutput } from '../../src/contract/index.js'
import { runCli, secretFlag } from '../support/action-runner.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import {
  lastUserMessage,
  startModelServer,
  type RecordedRequest,
  type ReplyScript
} from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

async function server(script: ReplyScript) {
  const started = await startModelServer(script)
  cleanups.push(() => started.close())
  return started
}

function track(repo: TestRepo): TestRepo {
  cleanups.push(() => repo.cleanup())
  return repo
}

const SUBJECT = 'feat(math): add a retry count to the counter module'
const RETRY_DIFF =
  '--- a/src/math.js\n+++ b/src/math.js\n@@ -1,2 +1,3 @@\n const add = (a, b) => a + b\n-module.exports = { add }\n+const retries = 3\n+module.exports = { add, retries }\n'

function mathRepo(): TestRepo {
  return track(
    createRepo({
      prefix: 'coding-task',
      files: {
        'src/math.js': 'const add = (a, b) => a + b\nmodule.exports = { add }\n',
        'test.js': "require('assert').strictEqual(require('./src/math').retries, 3)\n"
      }
    })
  )
}

function codingModel(diff: string) {
  return (request: RecordedRequest) =>
    lastUserMessage(request).includes('Write a unified diff for src/math.js') ? diff : SUBJECT
}

// Each describe's first CLI run is the bundle's (node dist/cli.js); the others run cli() in-process.
describe('Coding-Agent adapter: CodingTask in, CommitResult out', () => {
  it('commits on agt/<id> with the License-Tag footer and prints a SUCCESS CommitResult (node dist/cli.js)', async () => {
    const repo = mathRepo()
    const base = repo.git('rev-parse', 'HEAD')
    const model = await server(codingModel(RETRY_DIFF))
    const task = `${repo.root}/task.json`
    writeFileSync(
      task,
      JSON.stringify({
        id: 'T-7',
        parent_plan_id: 'plan-1',
        step_number: 2,
        goal: 'Export a retry count of 3 from the math module',
        paths: ['src/math.js'],
        skeleton_patch: ['+const retries = 3'],
        base_commit_sha: base,
        license_tag: 'MIT',
        complexity_label: 'small'
      })
    )
    const run = await runCli([
      '--json',
      'run',
      '--repo',
      repo.dir,
      '--coding-task',
      task,
      '--base-url',
      model.url,
      ...secretFlag('--api-key-file', 'k-1234'),
      '--validation-command',
      'node test.js'
    ])
    expect(run.exitCode, run.stderr).toBe(0)
    const result = commitResultSchema().parse(JSON.parse(run.stdout))
    const pushed = repo.gitOrigin('rev-parse', 'refs/heads/agt/T-7')
    expect(result).toMatchObject({
      task_id: 'T-7',
      commit_sha: pushed,
      branch_name: 'agt/T-7',
      status: 'SUCCESS',
      retries: 0
    })
    expect(result.llm_tokens_used).toBeGreaterThan(0)
    expect(result.notes).toContain('validated: node test.js (exit 0)')
    const message = repo.gitOrigin('log', '-1', '--format=%B', pushed)
    expect(message).toMatch(/^feat\(math\): add a retry count/)
    expect(message).toContain('\n\n[agent:T-7]\n\nLicense-Tag: MIT\nSigned-off-by: ')
    expect(message).not.toContain('Fixes #')
    // The skeleton patch reached the draft.
    expect(lastUserMessage(model.requests[0]!)).toContain('+const retries = 3')
  })

  it('maps a validation failure to SOFT_FAIL and a protected path to HARD_FAIL, in the output file (node dist/index.js)', async () => {
    const repo = mathRepo()
    const broken = RETRY_DIFF.replace('const retries = 3', 'const retries = 4')
    const model = await server(codingModel(broken))
    const soft = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        'coding-task': JSON.stringify({
          id: 'T-8',
          goal: 'Export retries',
          paths: ['src/math.js']
        }),
        'base-url': model.url,
        'api-key': 'k-1234',
        'validation-commands': 'node test.js',
        'max-repairs': '0',
        'output-path': `${repo.root}/soft.json`
      }
    })
    expect(soft.exitCode).toBe(1)
    expect(soft.outputs['error-code']).toBe('VALIDATION_FAILED')
    const softResult = commitResultSchema().parse(
      JSON.parse(readFileSync(`${repo.root}/soft.json`, 'utf8'))
    )
    expect(softResult).toMatchObject({ task_id: 'T-8', status: 'SOFT_FAIL', commit_sha: '' })
    expect(softResult.notes[0]).toMatch(/^VALIDATION_FAILED: /)
    expect(repo.gitOrigin('branch', '--list', 'agt/T-8')).toBe('')

    const hard = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        'coding-task': JSON.stringify({
          id: 'T-9',
          goal: 'Speed up CI',
          paths: ['.github/workflows/ci.yml']
        }),
        'base-url': model.url,
        'api-key': 'k-1234',
        'output-path': `${repo.root}/hard.json`
      }
    })
    expect(hard.exitCode).toBe(1)
    const hardResult = commitResultSchema().parse(
      JSON.parse(readFileSync(`${repo.root}/hard.json`, 'utf8'))
    )
    expect(hardResult).toMatchObject({
      task_id: 'T-9',
      status: 'HARD_FAIL',
      branch_name: 'agt/T-9'
    })
    expect(hardResult.notes[0]).toMatch(/^SECURITY_VIOLATION: /)
  })

  it('refuses a task that does not validate as HARD_FAIL with the field named', async () => {
    const repo = mathRepo()
    const model = await server(() => 'unused')
    const run = await runCliInProcess([
      '--json',
      'run',
      '--repo',
      repo.dir,
      '--coding-task',
      JSON.stringify({ id: 'T-10', paths: ['src/math.js'] }),
      '--base-url',
      model.url
    ])
    expect(run.exitCode).toBe(1)
    const result = commitResultSchema().parse(JSON.parse(run.stdout))
    expect(result).toMatchObject({ task_id: 'T-10', status: 'HARD_FAIL' })
    expect(result.notes[0]).toMatch(/^INVALID_INPUT: Invalid coding_task\.goal/)
    expect(model.requests).toHaveLength(0)
  })
})

const CHECK_JS =
  "const { greet } = require('./src/greet')\nif (greet('Ann') !== 'Hello, Ann!') { console.error('wrong greeting: ' + greet('Ann')); process.exit(1) }\nconsole.log('build ok')\n"

function codeCommitProject(files: Record<string, string> = {}): TestRepo {
  const repo = track(
    createRepo({
      prefix: 'code-commit',
      files: {
        '.gitignore': '/agent-config\nnode_modules/\n',
        'build.sh': 'node check.js\n',
        'check.js': CHECK_JS,
        'src/greet.js': "exports.greet = (name) => 'Hi ' + name\n",
        ...files
      }
    })
  )
  repo.write('agent-config/query.txt', 'Make greet say "Hello, <name>!"\n')
  repo.write(
    'agent-config/codeRollup.txt',
    "=== src/greet.js ===\nexports.greet = (name) => 'Hi ' + name\n"
  )
  return repo
}

/** The code-commit model: `first` for the initial query, `repaired` for a repair, then a subject. */
function codeCommitModel(first: string, repaired: string) {
  return server((request) => {
    const user = lastUserMessage(request)
    if (user.startsWith('[build.sh output]')) return repaired
    if (user.startsWith('[query]')) return first
    return 'feat(greet): greet people with a full hello sentence'
  })
}

describe('code-commit adapter: patchsmith commit', () => {
  it('sends the initial and repair prompts in the seed order, logs NN-build.txt and commits when build.sh passes', async () => {
    const repo = codeCommitProject()
    const base = repo.git('rev-parse', 'HEAD')
    const first =
      "Here you go.\n^^^src/greet.js\nexports.greet = (name) => 'Hello ' + name\n^^^end\n"
    const repaired = '^^^src/greet.js\nexports.greet = (name) => `Hello, ${name}!`\n^^^end\n'
    const model = await codeCommitModel(first, repaired)
    const run = await runCli(
      [
        '--json',
        'commit',
        '--base-url',
        model.url,
        ...secretFlag('--api-key-file', 'sk-cc-secret-1234')
      ],
      {
        cwd: repo.dir
      }
    )
    expect(run.exitCode, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.success).toBe(true)
    expect(result.metrics).toMatchObject({ attempts: 2 })

    const [initial, repair] = model.requests
    const system = (request: RecordedRequest) => request.body.messages[0].content as string
    const order = (text: string, parts: string[]) => parts.map((part) => text.indexOf(part))
    for (const request of [initial!, repair!]) {
      const positions = order(system(request), [
        'You are working on a software project',
        'To change a file, write its path',
        request === initial ? 'Below are the supervisor' : 'Your earlier changes were applied'
      ])
      expect(positions.every((at, i) => at >= 0 && (i === 0 || at > positions[i - 1]!))).toBe(true)
    }
    const initialUser = lastUserMessage(initial!)
    expect(initialUser.indexOf('[query]')).toBeLessThan(initialUser.indexOf('[codebase]'))
    expect(initialUser).toContain('Make greet say "Hello, <name>!"')
    const repairUser = lastUserMessage(repair!)
    const parts = order(repairUser, [
      '[build.sh output]',
      '[query]',
      '[codebase]',
      '[file replacements]'
    ])
    expect(parts.every((at, i) => at >= 0 && (i === 0 || at > parts[i - 1]!))).toBe(true)
    expect(repairUser).toContain('wrong greeting: Hello Ann')
    expect(repairUser).toContain(
      "--- FILE REPLACEMENT src/greet.js ---\nexports.greet = (name) => 'Hello ' + name\n"
    )

    // Logs in the seed's folder, numbered per model call; never committed (gitignored).
    const logs = `${repo.dir}/agent-config/logs`
    expect(readFileSync(`${logs}/01-build.txt`, 'utf8')).toMatch(
      /exit code: 1[\s\S]*wrong greeting/
    )
    expect(readFileSync(`${logs}/02-build.txt`, 'utf8')).toMatch(/exit code: 0[\s\S]*build ok/)
    expect(readFileSync(`${logs}/02-request.json`, 'utf8')).not.toContain('sk-cc-secret-1234')

    // Committed locally for the supervisor, not pushed.
    expect(repo.git('rev-parse', 'HEAD~1')).toBe(base)
    expect(repo.read('src/greet.js')).toBe('exports.greet = (name) => `Hello, ${name}!`\n')
    expect(repo.git('log', '-1', '--format=%B')).toMatch(/^feat\(greet\): greet people/)
    expect(repo.git('log', '-1', '--format=%B')).not.toContain('Fixes #')
    expect(repo.gitOrigin('rev-parse', 'main')).toBe(base)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it.each([
    ['the query file is missing', 'query', 'agent-config/query.txt is missing'],
    ['the rollup is missing', 'rollup', 'agent-config/codeRollup.txt is missing'],
    ['.gitignore lacks /agent-config', 'gitignore', '.gitignore has no "/agent-config" line']
  ])('refuses with INVALID_INPUT when %s, before any model call', async (_name, what, message) => {
    const repo = codeCommitProject(
      what === 'gitignore' ? { '.gitignore': 'agent-config/logs\n' } : {}
    )
    if (what === 'query') rmSync(`${repo.dir}/agent-config/query.txt`)
    if (what === 'rollup') rmSync(`${repo.dir}/agent-config/codeRollup.txt`)
    const model = await server(() => 'unused')
    const run = await runCliInProcess(
      ['--json', 'commit', '--base-url', model.url, ...secretFlag('--api-key-file', 'k-1234')],
      {
        cwd: repo.dir
      }
    )
    expect(run.exitCode).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error).toMatchObject({ code: 'INVALID_INPUT' })
    expect(result.error!.message).toContain(message)
    expect(model.requests).toHaveLength(0)
    expect(existsSync(`${repo.dir}/agent-config/logs`)).toBe(false)
  })

  it('judges a repair written as a diff by the names in its headers: SECURITY_VIOLATION, nothing committed', async () => {
    const repo = codeCommitProject()
    const base = repo.git('rev-parse', 'HEAD')
    const first = "^^^src/greet.js\nexports.greet = (name) => 'Hello ' + name\n^^^end\n"
    // Lands on the one planned file whatever its headers say, unless the policy reads them.
    const repaired =
      "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-exports.greet = (name) => 'Hello ' + name\n+exports.greet = (name) => `Hello, ${name}!`\n"
    const model = await codeCommitModel(first, repaired)
    const run = await runCliInProcess(
      ['--json', 'commit', '--base-url', model.url, ...secretFlag('--api-key-file', 'k-1234')],
      { cwd: repo.dir }
    )
    expect(run.exitCode).toBe(1)
    expect(JSON.parse(run.stdout).error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'blocked-path' }
    })
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
  })

  it('refuses the whole reply when one block names a protected file: nothing is written', async () => {
    const repo = codeCommitProject()
    const base = repo.git('rev-parse', 'HEAD')
    const model = await server(
      () => "^^^src/greet.js\nexports.greet = () => 'x'\n^^^end\n^^^build.sh\nexit 0\n^^^end\n"
    )
    const run = await runCliInProcess(
      ['--json', 'commit', '--base-url', model.url, ...secretFlag('--api-key-file', 'k-1234')],
      {
        cwd: repo.dir
      }
    )
    expect(run.exitCode).toBe(1)
    expect(JSON.parse(run.stdout).error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { path: 'build.sh' }
    })
    expect(repo.read('src/greet.js')).toBe("exports.greet = (name) => 'Hi ' + name\n")
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
  })
})
