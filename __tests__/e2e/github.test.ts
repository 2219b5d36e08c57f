import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runActionInProcess } from '../support/in-process.js'
import { startGitHubServer, type GitHubServer } from '../support/github-server.js'
import { createRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const TOKEN = 'ghs_feedbacktoken00000000000000000000'

/** A run that fails before any model call (its branch exists), with the issue feedback on. */
async function failingRun(github: GitHubServer, inputs: Record<string, string> = {}) {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'feedback' })
  cleanups.push(() => repo.cleanup())
  repo.git('push', '-q', 'origin', 'HEAD:refs/heads/fix/8-a')
  const files = writeInputs(repo, {
    'issue.json': { number: 8, title: 'Change a', body: '' },
    'plan.json': {
      branch_name: 'fix/8-a',
      plan_steps: ['Change a'],
      file_changes: [{ path: 'a.txt', operation: 'MODIFY' }],
      validation_commands: []
    }
  })
  const run = await runActionInProcess({
    workspace: repo.dir,
    env: { GITHUB_API_URL: github.url },
    inputs: {
      issue: files['issue.json']!,
      'fix-plan': files['plan.json']!,
      'base-url': 'http://127.0.0.1:9/v1',
      'api-key': 'k',
      'github-token': TOKEN,
      'output-path': `${repo.root}/result.json`,
      // The failure comment of its own: a run by hand (this event) would end its progress
      // comment with the failure instead (progress-comment.test.ts).
      'progress-comment': 'false',
      ...inputs
    }
  })
  const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
  return { run, result }
}

async function gitHub(): Promise<GitHubServer> {
  const server = await startGitHubServer()
  cleanups.push(() => server.close())
  return server
}

const posted = (github: GitHubServer, kind: 'comments' | 'labels') =>
  github.requests.filter(
    (r) => r.method === 'POST' && r.path === `/repos/acme/widgets/issues/8/${kind}`
  )

describe('failure feedback on the issue (through the action)', () => {
  it('posts exactly one templated comment and one label', async () => {
    const github = await gitHub()
    const { run } = await failingRun(github, { 'failure-label': 'needs-human' })
    expect(run.exitCode).toBe(1)
    expect(posted(github, 'comments')).toHaveLength(1)
    expect(posted(github, 'labels').map((r) => r.body)).toEqual([{ labels: ['needs-human'] }])
    const body = posted(github, 'comments')[0]!.body.body as string
    expect(body).toMatch(
      /^<!-- patchsmith:failure -->\n\n### Patchsmith could not fix this automatically/
    )
    expect(body).toContain("| What failed | Preparing the plan's branch |")
    expect(body).toContain('| Error code | `BRANCH_EXISTS` |')
    expect(body).toContain('`fix/8-a`, rolled back')
  })

  it('waits out a 429 and posts the comment once', async () => {
    const github = await gitHub()
    github.route({
      method: 'POST',
      path: '/repos/acme/widgets/issues/8/comments',
      status: 429,
      headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit' },
      times: 1
    })
    const { run, result } = await failingRun(github)
    expect(run.exitCode).toBe(1)
    expect(result.error!.code).toBe('BRANCH_EXISTS')
    const comments = posted(github, 'comments')
    expect(comments).toHaveLength(2) // the 429, then the one that was created
    expect(run.stdout).toMatch(/secondary rate limit .*retrying in 1 s/)
    expect(result.error!.details).not.toHaveProperty('issue_feedback_problems')
  })

  it('reports a 403 as a permission problem, keeps the run’s own error, and never crashes', async () => {
    const github = await gitHub()
    github.route({
      method: 'POST',
      path: '/repos/acme/widgets/issues/8/comments',
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    })
    const { run, result } = await failingRun(github)
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('BRANCH_EXISTS')
    expect(posted(github, 'comments')).toHaveLength(1)
    expect(posted(github, 'labels')).toHaveLength(1)
    expect(run.stdout).toMatch(
      /::warning::Issue feedback: comment: the token may not comment on issue #8/
    )
    expect(result.error!.details!.issue_feedback_problems).toEqual([
      expect.stringMatching(/grant the job "issues: write"/)
    ])
    expect(run.stderr).not.toMatch(/Unhandled|TypeError/)
  })

  it('says so when the issue does not exist', async () => {
    const github = await gitHub()
    for (const kind of ['comments', 'labels'])
      github.route({
        method: 'POST',
        path: `/repos/acme/widgets/issues/8/${kind}`,
        status: 404,
        body: { message: 'Not Found' }
      })
    const { run, result } = await failingRun(github)
    expect(run.exitCode).toBe(1)
    expect(result.error!.details!.issue_feedback_problems).toEqual([
      'comment: issue #8 of acme/widgets was not found, or the token cannot see it (404).',
      'label: issue #8 of acme/widgets was not found, or the token cannot see it (404).'
    ])
  })
})
