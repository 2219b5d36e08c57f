import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runCli, secretFlag } from '../support/action-runner.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import { startGitHubServer } from '../support/github-server.js'
import { lastUserMessage, startModelServer, type RecordedRequest } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { ACTION_OUTPUTS, expectUntouched, writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const CONFIG_JS = [
  'function parseConfig(text) {',
  '  const config = { port: 3000 }',
  "  for (const line of text.split('\\n')) {",
  "    const [key, value] = line.split('=')",
  "    if (key === 'PORT') config.port = 3000",
  '  }',
  '  return config',
  '}',
  'module.exports = { parseConfig }',
  ''
].join('\n')

/** A small repository where only src/config.js defines parseConfig; decoys mention it. */
function fixtureRepo(): TestRepo {
  const repo = createRepo({
    prefix: 'planless',
    files: {
      '.gitignore': 'generated/\n',
      'src/config.js': CONFIG_JS,
      'src/app.js':
        "const { parseConfig } = require('./config')\nmodule.exports = () => parseConfig('PORT=8080')\n",
      'src/util.js': 'module.exports = { noop: () => undefined }\n',
      'README.md': '# widgets\n\nA small server.\n',
      '.github/workflows/ci.yml': 'on: push\n# function parseConfig(text) lives here too\n',
      'test.js':
        "const assert = require('assert')\nassert.strictEqual(require('./src/config').parseConfig('PORT=8080').port, 8080)\nconsole.log('config ok')\n"
    }
  })
  // Ignored, so never listed: a plan must not be able to point at it.
  repo.write('generated/parse.js', 'function parseConfig() {}\n')
  cleanups.push(() => repo.cleanup())
  return repo
}

const ISSUE = {
  number: 12,
  title: 'parseConfig ignores the PORT setting!',
  body: 'Calling `parseConfig("PORT=8080")` returns port 3000. Expected "8080" to be used.'
}

const FIX_DIFF =
  "--- a/src/config.js\n+++ b/src/config.js\n@@ -4,3 +4,3 @@\n     const [key, value] = line.split('=')\n" +
  "-    if (key === 'PORT') config.port = 3000\n+    if (key === 'PORT') config.port = Number(value)\n   }\n"

function planlessModel(plan: unknown) {
  return (request: RecordedRequest) => {
    const user = lastUserMessage(request)
    if (request.body.response_format?.json_schema?.name === 'fix_plan') return JSON.stringify(plan)
    if (user.includes('Write a unified diff for src/config.js')) return FIX_DIFF
    return 'fix(config): use the PORT value that parseConfig reads'
  }
}

const PLAN = {
  root_cause: 'parseConfig assigns the constant 3000 instead of the PORT value.',
  plan_steps: ['Assign Number(value) to config.port for the PORT key'],
  file_changes: [
    { path: 'src/config.js', operation: 'MODIFY', description: 'Use the parsed PORT value' }
  ]
}

describe('plan-less issue mode', () => {
  it('finds the file that defines the named function, plans with structured output and commits the fix (node dist/index.js)', async () => {
    const repo = fixtureRepo()
    const baseSha = repo.git('rev-parse', 'HEAD')
    const server = await startModelServer(planlessModel(PLAN))
    cleanups.push(() => server.close())
    const inputs = writeInputs(repo, { 'issue.json': ISSUE })
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: inputs['issue.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-planless',
        'validation-commands': 'node test.js',
        'output-path': `${repo.root}/result.json`
      }
    })
    expect(run.exitCode, run.stderr + run.stdout).toBe(0)
    for (const name of ACTION_OUTPUTS) expect(run.outputs, name).toHaveProperty(name)
    const branch = 'fix/12-parseconfig-ignores-the-port-setting'
    expect(run.outputs.branch).toBe(branch)
    expect(run.outputs['files-changed']).toBe('src/config.js')
    const sha = repo.gitOrigin('rev-parse', `refs/heads/${branch}`)
    expect(run.outputs.sha).toBe(sha)
    expect(repo.gitOrigin('diff', '--name-only', baseSha, sha)).toBe('src/config.js')
    expect(repo.gitOrigin('show', `${sha}:src/config.js`)).toContain('config.port = Number(value)')

    // The plan request: structured output with the plan schema, candidates found by a search.
    const planRequest = server.requests[0]!
    expect(planRequest.body.response_format.json_schema.name).toBe('fix_plan')
    const asked = lastUserMessage(planRequest)
    expect(asked).toContain('### src/config.js (')
    expect(asked.indexOf('### src/config.js')).toBeLessThan(asked.indexOf('### src/app.js'))
    expect(asked).toContain('defines parseConfig')
    expect(asked).not.toContain('generated/parse.js')
    expect(asked).not.toContain('.github/workflows/ci.yml')
    expect(asked).not.toContain('### src/util.js')

    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
    expect(result.metrics).toMatchObject({
      plan_source: 'generated',
      minimal_fix: { changed_lines: 2, is_minimal: true, limit: 100 }
    })
    const message = repo.gitOrigin('log', '-1', '--format=%B', sha)
    expect(message).toMatch(/^fix\(config\): /)
    expect(message).toContain('Fixes #12')
  })

  it('re-asks once when the plan names a file the search did not find, then refuses with MODEL_ERROR', async () => {
    const repo = fixtureRepo()
    const baseSha = repo.git('rev-parse', 'HEAD')
    const wrong = {
      ...PLAN,
      file_changes: [{ path: 'generated/parse.js', operation: 'MODIFY', description: 'x' }]
    }
    const server = await startModelServer(planlessModel(wrong))
    cleanups.push(() => server.close())
    const inputs = writeInputs(repo, { 'issue.json': ISSUE })
    const run = await runCli([
      '--json',
      'run',
      '--repo',
      repo.dir,
      '--issue',
      inputs['issue.json']!,
      '--base-url',
      server.url,
      ...secretFlag('--api-key-file', 'k-1234'),
      '--validation-command',
      'node test.js'
    ])
    expect(run.exitCode, run.stderr).toBe(1)
    const result = JSON.parse(run.stdout) as CodeAgentOutput
    expect(result.error).toMatchObject({ code: 'MODEL_ERROR', details: { rule: 'invalid-plan' } })
    expect(result.error!.message).toContain('generated/parse.js')
    expect(server.requests).toHaveLength(2)
    expect(lastUserMessage(server.requests[1]!)).toContain('not one of the candidate files')
    expect(expectUntouched(repo, 'fix/12-parseconfig-ignores-the-port-setting', baseSha)).toEqual(
      []
    )
  })

  it('names the problems of both refused plans, not only the last', async () => {
    const repo = fixtureRepo()
    const plans = [
      // First a file that does not exist; then, "corrected", another the search did not find.
      {
        ...PLAN,
        file_changes: [{ path: 'lib/missing.js', operation: 'MODIFY', description: 'x' }]
      },
      { ...PLAN, file_changes: [{ path: 'src/other.js', operation: 'MODIFY', description: 'x' }] }
    ]
    const server = await startModelServer(() => JSON.stringify(plans.shift() ?? PLAN))
    cleanups.push(() => server.close())
    const inputs = writeInputs(repo, { 'issue.json': ISSUE })
    const run = await runCliInProcess([
      '--json',
      'run',
      '--repo',
      repo.dir,
      '--issue',
      inputs['issue.json']!,
      '--base-url',
      server.url,
      ...secretFlag('--api-key-file', 'k-1234')
    ])
    expect(run.exitCode, run.stderr).toBe(1)
    const error = (JSON.parse(run.stdout) as CodeAgentOutput).error!
    expect(error).toMatchObject({ code: 'MODEL_ERROR', details: { rule: 'invalid-plan' } })
    expect(error.message).toBe(
      "The model's fix plan was refused twice: first for lib/missing.js is not one of the " +
        'candidate files; then, corrected, for src/other.js is not one of the candidate files'
    )
    expect(error.details).toMatchObject({
      rounds: [
        ['lib/missing.js is not one of the candidate files'],
        ['src/other.js is not one of the candidate files']
      ]
    })
    expect(server.requests).toHaveLength(2)
  })

  it('fetches the issue by --issue-number from the GitHub API, and a missing one is "Issue #N not found"', async () => {
    const repo = fixtureRepo()
    const server = await startModelServer(planlessModel(PLAN))
    const github = await startGitHubServer()
    cleanups.push(
      () => server.close(),
      () => github.close()
    )
    github.route({ method: 'GET', path: '/repos/acme/widgets/issues/12', body: ISSUE })
    const args = (number: string) => [
      '--json',
      'run',
      '--repo',
      repo.dir,
      '--issue-number',
      number,
      ...secretFlag('--github-token-file', 'ghs_planless000000000000000000000000000'),
      '--base-url',
      server.url,
      ...secretFlag('--api-key-file', 'k-1234'),
      '--validation-command',
      'node test.js',
      '--no-push'
    ]
    const env = { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/widgets' }
    github.route({
      method: 'GET',
      path: '/repos/acme/widgets/issues/404',
      status: 404,
      body: { message: 'Not Found' }
    })
    const missing = await runCliInProcess(args('404'), { env })
    expect(missing.exitCode).toBe(1)
    expect(JSON.parse(missing.stdout).error).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'Issue #404 not found'
    })
    expect(server.requests).toHaveLength(0)

    const found = await runCliInProcess(args('12'), { env })
    expect(found.exitCode, found.stderr).toBe(0)
    const result = JSON.parse(found.stdout) as CodeAgentOutput
    expect(result.data![0]).toMatchObject({ issue_number: 12, files_changed: ['src/config.js'] })
    expect(github.requests.filter((r) => r.path === '/repos/acme/widgets/issues/12')).toHaveLength(
      1
    )
  })
})
