import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runAction } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { startGitHubServer } from '../support/github-server.js'
import { replyByMatch, startModelServer, type ModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import {
  ACTION_OUTPUTS,
  COMMIT_SUBJECT,
  expectUntouched,
  typoRepo,
  typoReplies,
  TYPO_EXAMPLE,
  writeInputs
} from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { answeredTogether } from '../support/answered-together.js'

const cleanups = cleanupAfterEach()

async function modelServer(script: Parameters<typeof startModelServer>[0]): Promise<ModelServer> {
  const server = await startModelServer(script)
  cleanups.push(() => server.close())
  return server
}

function track(repo: TestRepo): TestRepo {
  cleanups.push(() => repo.cleanup())
  return repo
}

function resultOf(path: string): CodeAgentOutput {
  return JSON.parse(readFileSync(path, 'utf8')) as CodeAgentOutput
}

describe('seed scenario 1: typo fix through node dist/index.js', () => {
  it('pushes docs/42-fix-typo-readme with a Conventional Commit, the exact change and a recorded validation', async () => {
    const repo = track(typoRepo())
    const baseSha = repo.git('rev-parse', 'HEAD')
    const recorded = typoReplies()
    const server = await modelServer(replyByMatch(recorded.replies))
    const issue = JSON.parse(readFileSync(`${TYPO_EXAMPLE}/issue.json`, 'utf8'))
    const run = await runAction({
      workspace: repo.dir,
      event: {
        action: 'labeled',
        issue: { ...issue, user: { login: 'someone' }, labels: [{ name: 'patchsmith' }] }
      },
      inputs: {
        'fix-plan': `${TYPO_EXAMPLE}/fix-plan.json`,
        'triage-result': `${TYPO_EXAMPLE}/triage-result.json`,
        'base-url': server.url,
        'api-key': 'sk-test-typo',
        model: recorded.model,
        'validation-commands': 'npm run lint',
        'output-path': `${repo.root}/result.json`
      }
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    // Through @actions/core's file commands: every output of action.yml in GITHUB_OUTPUT, the
    // summary in GITHUB_STEP_SUMMARY, and no state in GITHUB_STATE (there is no post step).
    expect(Object.keys(run.outputs).sort()).toEqual([...ACTION_OUTPUTS].sort())
    expect(run.summary).toContain('docs/42-fix-typo-readme')
    expect(run.state).toEqual({})
    expect(run.outputs.success).toBe('true')
    expect(run.outputs['error-code']).toBe('')
    expect(run.outputs.branch).toBe('docs/42-fix-typo-readme')
    expect(run.outputs['files-changed']).toBe('README.md')

    const pushed = repo.gitOrigin('rev-parse', 'refs/heads/docs/42-fix-typo-readme')
    expect(run.outputs.sha).toMatch(/^[0-9a-f]{40}$/)
    expect(run.outputs.sha).toBe(pushed)

    const message = repo.gitOrigin('log', '-1', '--format=%B', pushed)
    const [subject] = message.split('\n')
    expect(subject).toMatch(COMMIT_SUBJECT)
    expect(subject).toMatch(/^docs\(readme\): correct typo/)
    expect(message).toContain('\n\nFixes #42')
    expect(message).toMatch(/Signed-off-by: /)

    const expected = repo.read('README.md').replace('Run teh following', 'Run the following')
    expect(repo.gitOrigin('show', `${pushed}:README.md`)).toBe(expected.trimEnd())
    expect(repo.gitOrigin('diff', '--name-only', baseSha, pushed)).toBe('README.md')

    const [commit] = JSON.parse(run.outputs.commits!) as CodeAgentOutput['data'] & object[]
    expect(commit).toMatchObject({ issue_number: 42, sha: pushed, files_changed: ['README.md'] })
    expect(commit!.validation_results).toHaveLength(1)
    expect(commit!.validation_results[0]).toMatchObject({ command: 'npm run lint', exit_code: 0 })
    expect(commit!.validation_results[0]!.stdout).toContain('All files pass linting')
    // The patch id is git's own for the pushed commit (taken from the staged patch, no diff-tree).
    const shown = execFileSync('git', ['show', pushed], { cwd: repo.origin })
    const gitPatchId = execFileSync('git', ['patch-id', '--stable'], { input: shown })
    expect(commit!.patch_id).toBe(gitPatchId.toString().split(' ')[0])
    expect(resultOf(run.outputs['output-path']!).data).toEqual(JSON.parse(run.outputs.commits!))

    // The diff applies on the base, as a PR step that rebuilds the change would apply it.
    repo.git('checkout', '-q', baseSha)
    const patch = `${repo.root}/change.patch`
    writeFileSync(patch, commit!.diff)
    repo.git('apply', '--check', patch)
    repo.git('apply', patch)
    expect(repo.read('README.md')).toBe(expected)

    expect(run.summary).toMatch(/\| Branch \| `docs\/42-fix-typo-readme` \|/)
    expect(run.summary).toContain('| `npm run lint` | 0 |')
    expect(server.requests).toHaveLength(2)
    expect(JSON.stringify(server.requests[0]!.body)).toContain("Line 15: 'teh' should be 'the'")
  })
})

// Scenario 1 is the bundle's (node dist/index.js); 2 and 3 run in-process (src/main.ts's run()),
// sparing a Node start and the bundle's load each.
describe('seed scenario 2: validation failure', () => {
  it('exits 1 with VALIDATION_FAILED, rolls everything back and tells the issue once', async () => {
    const repo = track(
      createRepo({
        files: {
          'src/math.js': 'function add(a, b) {\n  return a + b\n}\nmodule.exports = { add }\n'
        },
        prefix: 'broken'
      })
    )
    const baseSha = repo.git('rev-parse', 'HEAD')
    // Edits that parse (the syntax gate lets them through) and fail when validation loads them.
    const broken =
      '--- a/src/math.js\n+++ b/src/math.js\n@@ -2,3 +2,3 @@\n   return a + b\n }\n-module.exports = { add }\n+module.exports = { add, sub }\n'
    const stillBroken = broken.replace(
      '-module.exports = { add }\n+module.exports = { add, sub }',
      '-module.exports = { add, sub }\n+module.exports = { add, sub, mul }'
    )
    const server = await modelServer((request) =>
      request.body.messages.length > 2 ? stillBroken : broken
    )
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    const inputs = writeInputs(repo, {
      'issue.json': { number: 7, title: 'Add numbers with care', body: 'add() should handle b' },
      'plan.json': {
        branch_name: 'fix/7-add',
        plan_steps: ['Change add'],
        file_changes: [{ path: 'src/math.js', operation: 'MODIFY' }],
        validation_commands: ['node src/math.js']
      }
    })
    const run = await runActionInProcess({
      workspace: repo.dir,
      env: { GITHUB_API_URL: github.url },
      inputs: {
        issue: inputs['issue.json']!,
        'fix-plan': inputs['plan.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-broken',
        'allow-plan-commands': 'true',
        'max-repairs': '1',
        'github-token': 'ghs_looptoken0000000000000000000000000',
        'output-path': `${repo.root}/result.json`
      }
    })
    expect(run.exitCode).toBe(1)
    for (const name of ACTION_OUTPUTS) expect(run.outputs, name).toHaveProperty(name)
    expect(run.outputs).toMatchObject({
      success: 'false',
      'error-code': 'VALIDATION_FAILED',
      sha: '',
      commits: '[]'
    })
    const result = resultOf(run.outputs['output-path']!)
    expect(result.error).toMatchObject({ code: 'VALIDATION_FAILED', recoverable: false })
    expect(result.error!.details).toMatchObject({ command: 'node src/math.js', exit_code: 1 })
    expect(String(result.error!.details!.stderr)).toContain('ReferenceError')
    expect(server.requests).toHaveLength(2) // one attempt and one repair, no commit message call
    expect(expectUntouched(repo, 'fix/7-add', baseSha)).toEqual([])

    const comments = github.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/issues/7/comments')
    )
    const labels = github.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/issues/7/labels')
    )
    expect(comments).toHaveLength(1)
    // The run's one comment (its progress comment, the run being by hand) as it ends.
    expect(github.comments.map((c) => c.issue)).toEqual([7])
    expect(github.comments[0]!.body).toContain('VALIDATION_FAILED')
    expect(github.comments[0]!.body).toContain('ReferenceError')
    expect(labels).toHaveLength(1)
    expect(labels[0]!.body.labels).toEqual(['automation-failed'])
    expect(JSON.stringify(github.requests)).not.toContain('sk-test-broken')
    expect(run.summary).toContain('VALIDATION_FAILED')
  })
})

describe('seed scenario 3: multi-file change', () => {
  it('drafts three files concurrently and commits them in one commit', async () => {
    const files: Record<string, string> = {}
    for (const name of ['a', 'b', 'c']) files[`src/${name}.js`] = `export const ${name} = 1\n`
    const repo = track(createRepo({ files, prefix: 'multi' }))
    const baseSha = repo.git('rev-parse', 'HEAD')
    // The three drafts are answered once all three are asked (the commit message comes later).
    const server = await modelServer(
      answeredTogether(3, (request) => {
        const text = JSON.stringify(request.body)
        const name = ['a', 'b', 'c'].find((n) =>
          text.includes(`Write a unified diff for src/${n}.js`)
        )
        if (!name) return 'refactor(src): rename the three counters to start at two'
        return {
          delayMs: 50,
          content: `--- a/src/${name}.js\n+++ b/src/${name}.js\n@@ -1 +1 @@\n-export const ${name} = 1\n+export const ${name} = 2\n`
        }
      })
    )
    const inputs = writeInputs(repo, {
      'issue.json': {
        number: 9,
        title: 'Counters should start at two',
        body: 'a, b and c start at 1'
      },
      'plan.json': {
        branch_name: 'fix/9-counters',
        plan_steps: ['Set each counter to 2'],
        file_changes: ['a', 'b', 'c'].map((n) => ({ path: `src/${n}.js`, operation: 'MODIFY' })),
        validation_commands: ['node src/a.js', 'node -e "process.exit(0)"']
      }
    })
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: inputs['issue.json']!,
        'fix-plan': inputs['plan.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-multi',
        'validation-commands': 'node src/a.js\nnode -e "process.exit(0)"'
      }
    })
    expect(run.exitCode, run.stderr + run.stdout).toBe(0)
    const drafts = server.requests.slice(0, 3)
    const overlapping = drafts.every((r) =>
      drafts.every((o) => r.startedAt < o.endedAt! && o.startedAt < r.endedAt!)
    )
    expect(server.maxConcurrent).toBe(3)
    expect(overlapping).toBe(true)
    const sha = run.outputs.sha!
    expect(sha).toMatch(/^[0-9a-f]{40}$/)
    expect(repo.gitOrigin('rev-parse', 'refs/heads/fix/9-counters')).toBe(sha)
    expect(repo.gitOrigin('rev-list', '--count', `${baseSha}..${sha}`)).toBe('1')
    expect(repo.gitOrigin('diff', '--name-only', baseSha, sha).split('\n')).toEqual([
      'src/a.js',
      'src/b.js',
      'src/c.js'
    ])
    const [commit] = JSON.parse(run.outputs.commits!)
    expect(commit.validation_results.map((r: { exit_code: number }) => r.exit_code)).toEqual([0, 0])
    expect(commit.message.split('\n')[0]).toBe(
      'refactor(src): rename the three counters to start at two'
    )
    expect(run.outputs['files-changed']).toBe('src/a.js\nsrc/b.js\nsrc/c.js')
  })
})
