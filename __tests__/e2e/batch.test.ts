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

/** Whether issue 15's draft breaks its module (the first run); a rerun's model has it fixed. */
let betaBreaks = true

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
  if (betaBreaks && user.includes('Write a unified diff for lib/beta.js'))
    return diff('beta', "throw new Error('beta broke')")
  for (const name of Object.values(NAMES))
    if (user.includes(`Write a unified diff for lib/${name}.js`)) return diff(name, 'return 2')
  return 'fix(lib): return the value the issue asks for'
}

async function world() {
  betaBreaks = true
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
  const runBatch = (name: string) =>
    runAction({
      workspace: repo.dir,
      env: { GITHUB_API_URL: github.url },
      inputs: {
        'base-url': server.url,
        'api-key': 'sk-test-batch-0001',
        'github-token': 'ghs_batchtoken0000000000000000000000000',
        'validation-commands': 'node check.js',
        'max-repairs': '0',
        'output-path': `${repo.root}/${name}.json`,
        settings: 'issues: 12, 15, 18\nprogress-comment: false'
      }
    })
  const result = (name: string) => JSON.parse(readFileSync(`${repo.root}/${name}.json`, 'utf8'))
  return { repo, base, server, runBatch, result }
}

const outcomes = (issues: { issue: number; status: string }[]) =>
  issues.map((s) => [s.issue, s.status])

describe('batch of issues', () => {
  it('commits the first issue, stops at the second that fails, and lists every outcome', async () => {
    const { repo, base, server, runBatch, result: read } = await world()
    const run = await runBatch('result')
    expect(run.exitCode, run.stdout + run.stderr).toBe(1)
    const result = read('result')
    expect(result.error.code).toBe('VALIDATION_FAILED')
    expect(result.error.message).toMatch(
      /^Issue #15 failed; 1 issue\(s\) before it stay committed on fix\/batch-12-15-18, #18 not run/
    )
    expect(outcomes(result.error.details.issues)).toEqual([
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

  it('reruns from the first issue not done: the first is not redone, the others are committed on top', async () => {
    const { repo, base, server, runBatch, result } = await world()
    const first = await runBatch('first')
    expect(first.exitCode, first.stdout + first.stderr).toBe(1)
    const kept = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    // The model's reply for #15 is fixed; the same batch runs again.
    betaBreaks = false
    const asked = server.requests.length
    const rerun = await runBatch('rerun')
    expect(rerun.exitCode, rerun.stdout + rerun.stderr).toBe(0)
    const again = result('rerun')
    expect(again.success).toBe(true)
    expect(outcomes(again.metrics.issues)).toEqual([
      [12, 'done'],
      [15, 'committed'],
      [18, 'committed']
    ])
    expect(again.metrics.issues[0].sha).toBe(kept)
    expect(rerun.stdout).toContain(`done by an earlier run: #12`)
    // No model request for #12: neither its plan nor a draft nor a message.
    const rerunRequests = server.requests.slice(asked).map(lastUserMessage)
    expect(rerunRequests.some((text) => text.includes('alphaValue'))).toBe(false)
    expect(rerunRequests.some((text) => text.includes('betaValue'))).toBe(true)
    // This run's two commits, on origin's tip, in order; the earlier one is kept as it was.
    expect(again.data.map((c: { issue_number: number }) => c.issue_number)).toEqual([15, 18])
    const tip = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    expect(tip).toBe(again.data[1].sha)
    expect(repo.gitOrigin('rev-list', '--reverse', `${base}..${BRANCH}`).split('\n')).toEqual([
      kept,
      again.data[0].sha,
      again.data[1].sha
    ])
    for (const name of Object.values(NAMES))
      expect(repo.gitOrigin('show', `${BRANCH}:lib/${name}.js`)).toContain('return 2')
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('status', '--porcelain')).toBe('')
    const body = readFileSync(rerun.outputs['pull-request-body-path']!, 'utf8')
    expect(body).toContain(`| #12 | ✅ committed by an earlier run | \`${kept.slice(0, 12)}\` |`)
    expect(body).toContain('| #15 | ✅ committed |')
    expect(body).toContain('| #18 | ✅ committed |')
    expect(body).toMatch(/Fixes #12\nFixes #15\nFixes #18\n$/)
    expect(rerun.outputs['pull-request-title']).toBe('Patchsmith: #12, #15, #18')
  })

  it('refuses to rerun on a batch branch holding a commit that is not the batch’s', async () => {
    const { repo, server, runBatch, result } = await world()
    const first = await runBatch('first')
    expect(first.exitCode, first.stdout + first.stderr).toBe(1)
    // Someone pushes a commit of their own onto the batch's branch.
    repo.git('checkout', '--quiet', BRANCH)
    repo.write('lib/beta.js', moduleFile('beta').replace('return 1', 'return 3'))
    const foreign = repo.commitAll('Fixes #15 by hand')
    repo.git('push', '--quiet', 'origin', BRANCH)
    repo.git('checkout', '--quiet', 'main')
    betaBreaks = false
    const asked = server.requests.length
    const rerun = await runBatch('rerun')
    expect(rerun.exitCode, rerun.stdout + rerun.stderr).toBe(1)
    const refused = result('rerun').error
    expect(refused).toMatchObject({
      code: 'BRANCH_EXISTS',
      details: { rule: 'different-change', branch: BRANCH }
    })
    expect(refused.message).toContain(`commit ${foreign.slice(0, 12)} is not one of Patchsmith's`)
    expect(refused.message).not.toContain('Branch:')
    expect(server.requests.length).toBe(asked)
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(foreign)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  })
})
