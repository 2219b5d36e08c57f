/**
 * A batch (`issues: 12, 15, 18`) through `node dist/index.js` against the loopback GitHub API
 * and model: one branch, each issue planned, validated and committed in order with its own
 * proof; the second fails, is rolled back and stops the batch, the first issue's commit stays
 * on the pushed branch, and the result and pull-request body list each issue's outcome.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runAction } from '../support/action-runner.js'
import { lastUserMessage, startModelServer, type RecordedRequest } from '../support/model-server.js'
import { startGitHubServer } from '../support/github-server.js'
import { createRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const NAMES = { 12: 'alpha', 15: 'beta', 18: 'gamma' } as const
const BRANCH = 'fix/batch-12-15-18'

const moduleFile = (name: string) =>
  `function ${name}Value() {\n  return 1\n}\nmodule.exports = { ${name}Value }\n`
// Calls every function of every module: a module that throws fails validation.
const CHECK =
  "const fs = require('fs')\nfor (const f of fs.readdirSync('lib')) {\n  const m = require('./lib/' + f)\n  for (const k of Object.keys(m)) m[k]()\n}\nconsole.log('all modules ok')\n"

function diff(name: string, line: string): string {
  return `--- a/lib/${name}.js\n+++ b/lib/${name}.js\n@@ -1,3 +1,3 @@\n function ${name}Value() {\n-  return 1\n+  ${line}\n }\n`
}

function model(request: RecordedRequest): string {
  const user = lastUserMessage(request)
  if (request.body.response_format?.json_schema?.name === 'fix_plan') {
    const name = Object.values(NAMES).find((n) => user.includes(`${n}Value returns 1`))!
    return JSON.stringify({
      root_cause: `${name}Value returns the wrong number.`,
      plan_steps: [`Return 2 from ${name}Value`],
      file_changes: [
        { path: `lib/${name}.js`, operation: 'MODIFY', description: `Return 2 from ${name}Value` }
      ]
    })
  }
  // Issue 15's draft breaks its module: validation fails and the batch stops there.
  if (user.includes('Write a unified diff for lib/beta.js'))
    return diff('beta', "throw new Error('beta broke')")
  for (const name of Object.values(NAMES))
    if (user.includes(`Write a unified diff for lib/${name}.js`)) return diff(name, 'return 2')
  return 'fix(lib): return the value the issue asks for'
}

describe('batch of issues', () => {
  it('commits the first issue, stops at the second that fails, and lists every outcome', async () => {
    const repo = createRepo({
      prefix: 'batch',
      files: {
        'lib/alpha.js': moduleFile('alpha'),
        'lib/beta.js': moduleFile('beta'),
        'lib/gamma.js': moduleFile('gamma'),
        'check.js': CHECK
      }
    })
    cleanups.push(() => repo.cleanup())
    const base = repo.git('rev-parse', 'HEAD')
    const server = await startModelServer(model)
    cleanups.push(() => server.close())
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    for (const [number, name] of Object.entries(NAMES))
      github.route({
        method: 'GET',
        path: `/repos/acme/widgets/issues/${number}`,
        body: {
          number: Number(number),
          title: `${name}Value returns 1`,
          body: `${name}Value in lib/${name}.js should return 2.`
        }
      })
    const run = await runAction({
      workspace: repo.dir,
      env: { GITHUB_API_URL: github.url },
      inputs: {
        'base-url': server.url,
        'api-key': 'sk-test-batch-0001',
        'github-token': 'ghs_batchtoken0000000000000000000000000',
        'validation-commands': 'node check.js',
        'max-repairs': '0',
        'output-path': `${repo.root}/result.json`,
        settings: 'issues: 12, 15, 18\nprogress-comment: false'
      }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(1)
    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8'))
    expect(result.error.code).toBe('VALIDATION_FAILED')
    expect(result.error.message).toMatch(
      /^Issue #15 failed; 1 issue\(s\) before it stay committed on fix\/batch-12-15-18, #18 not run/
    )
    expect(
      result.error.details.issues.map((s: { issue: number; status: string }) => [s.issue, s.status])
    ).toEqual([
      [12, 'committed'],
      [15, 'failed'],
      [18, 'not-run']
    ])
    // The first issue's commit, with its own proof and Fixes line, stays on the pushed branch.
    expect(result.data).toHaveLength(1)
    const [commit] = result.data
    expect(commit).toMatchObject({
      issue_number: 12,
      branch: BRANCH,
      files_changed: ['lib/alpha.js']
    })
    expect(commit.validation_results[0]).toMatchObject({ command: 'node check.js', exit_code: 0 })
    expect(commit.message).toContain('Fixes #12')
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(commit.sha)
    expect(repo.gitOrigin('rev-list', '--count', `${base}..${BRANCH}`)).toBe('1')
    expect(repo.gitOrigin('show', `${BRANCH}:lib/beta.js`)).toBe(moduleFile('beta').trimEnd())
    // Issue 18 was never planned or drafted.
    expect(server.requests.some((r) => lastUserMessage(r).includes('gammaValue'))).toBe(false)
    // The work tree is back on main, as found; no issue branch is left behind.
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('branch', '--list', `${BRANCH}-*`)).toBe('')
    // The pull request for what was kept lists each issue's outcome.
    const body = readFileSync(run.outputs['pull-request-body-path']!, 'utf8')
    expect(body).toContain('| #12 | ✅ committed |')
    expect(body).toMatch(/\| #15 \| ❌ failed \| — \| VALIDATION\\_FAILED: /)
    expect(body).toContain('| #18 | ⏸️ not run |')
    expect(body).toMatch(/Fixes #12\n$/)
    expect(body).not.toMatch(/Fixes #1[58]/)
    expect(run.outputs['pull-request-title']).toBe('Patchsmith: #12')
  })
})
