/**
 * The progress comment through `node dist/index.js` against the loopback GitHub API: created
 * once when an issue starts the run, edited at each phase, ending with the outcome (success,
 * failure, cancelled); no request when it is off or in a dry run. A run started by hand
 * (`workflow_dispatch`, as examples/workflows/rerun-dispatch.yml does) reports on the issue its
 * inputs name. The success, the run by hand and the cancellation go through the bundle; the other runs are in-process (src/main.ts's run()), sparing
 * a Node start and the bundle's load each.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runAction, type ActionRunOptions } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { startGitHubServer, type GitHubServer } from '../support/github-server.js'
import { TYPO_EXAMPLE, TYPO_LINT, TYPO_PLAN, typoReplies, typoRepo } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const ISSUE = 7
const RUN_URL = 'https://github.com/acme/widgets/actions/runs/4242'

async function world(draftDelayMs = 0) {
  const work = typoRepo()
  cleanups.push(() => work.cleanup())
  const diff = typoReplies().replies[0]!.reply
  const model = await startModelServer(
    replyByMatch(
      [
        {
          contains: 'Conventional Commit',
          reply: { content: 'docs(readme): correct typo in install' }
        }
      ],
      { content: diff, delayMs: draftDelayMs }
    )
  )
  cleanups.push(() => model.close())
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  return { work, model, github }
}

function options(
  w: Awaited<ReturnType<typeof world>>,
  inputs: Record<string, string> = {},
  extra: Partial<ActionRunOptions> = {}
): ActionRunOptions {
  return {
    workspace: w.work.dir,
    event: { action: 'labeled', issue: { number: ISSUE } },
    env: {
      GITHUB_API_URL: w.github.url,
      GITHUB_RUN_ID: '4242',
      GITHUB_SERVER_URL: 'https://github.com'
    },
    inputs: {
      issue: `${TYPO_EXAMPLE}/issue.json`,
      'fix-plan': TYPO_PLAN,
      'base-url': w.model.url,
      'api-key': 'sk-test-progress-0001',
      'github-token': 'ghs_progresstoken000000000000000000000',
      'output-path': `${w.work.root}/result.json`,
      'log-dir': `${w.work.root}/logs`,
      'validation-commands': TYPO_LINT,
      push: 'false',
      ...inputs
    },
    ...extra
  }
}

const commentCalls = (github: GitHubServer) =>
  github.requests.filter((r) => /\/issues\/(\d+\/)?comments/.test(r.path))

describe('progress comment', () => {
  it('is created once, edited at each phase, and ends with the outcome on success', async () => {
    const w = await world()
    const run = await runAction(options(w))
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    const posts = commentCalls(w.github).filter((r) => r.method === 'POST')
    expect(posts).toHaveLength(1)
    expect(w.github.comments).toHaveLength(1)
    const [comment] = w.github.comments
    expect(comment!.issue).toBe(ISSUE)
    const states = comment!.history
    expect(states[0]).toMatch(
      /^<!-- patchsmith:progress run=4242 -->\n### 👀 Patchsmith is working/
    )
    expect(states[0]).toContain(RUN_URL)
    for (const now of ['⏳ Planning', '⏳ Drafting', '⏳ Validating (0 repairs)', '⏳ Committing'])
      expect(
        states.some((state) => state.includes(now)),
        now
      ).toBe(true)
    // At most one request per state shown: the creation, the phases, the outcome.
    expect(commentCalls(w.github)).toHaveLength(states.length)
    expect(new Set(states).size).toBe(states.length)
    const last = comment!.body
    expect(last).toContain('### ✅ Patchsmith fixed this')
    expect(last).toContain('`README.md`')
    // The base fails the lint (the typo) and the change makes it pass: the proof says so.
    expect(last).toContain(`| \`${TYPO_LINT}\` | ❌ fails | ✅ passes | \`${TYPO_LINT}\` | — |`)
    expect(last).toMatch(/tokens \(\d+ in, \d+ out\) · 2 model calls/)
    expect(last).toContain(RUN_URL)
    // The pull request's body, as a file for create-pull-request's body-path.
    expect(run.outputs['pull-request-title']).toMatch(/^docs\(readme\): /)
    const body = readFileSync(run.outputs['pull-request-body-path']!, 'utf8')
    expect(body).toContain('### Proof')
    expect(body).toContain(`| \`${TYPO_LINT}\` | ❌ fails | ✅ passes | \`${TYPO_LINT}\` | — |`)
    expect(body).toContain(RUN_URL)
    expect(body).toMatch(/Fixes #\d+\n$/)
  })

  it('ends with the failure and the rerun hint, in the same comment, and still labels', async () => {
    const w = await world()
    w.work.git('push', '-q', 'origin', 'HEAD:refs/heads/docs/42-fix-typo-readme')
    const run = await runActionInProcess(options(w, { push: 'true' }))
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('BRANCH_EXISTS')
    expect(commentCalls(w.github).filter((r) => r.method === 'POST')).toHaveLength(1)
    expect(w.github.comments).toHaveLength(1)
    const last = w.github.comments[0]!.body
    expect(last).toMatch(/^<!-- patchsmith:progress run=4242 -->\n<!-- patchsmith:failure -->/)
    expect(last).toContain('| Error code | `BRANCH_EXISTS` |')
    expect(last).toContain('Rerun the job')
    expect(w.github.requests.filter((r) => r.path.endsWith('/labels'))).toHaveLength(1)
  })

  it('ends with the cancellation when the job is cancelled mid-run', async () => {
    const w = await world(20_000)
    const drafting = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (w.github.comments[0]?.body.includes('⏳ Drafting')) {
          clearInterval(timer)
          resolve()
        }
      }, 50)
      cleanups.push(() => clearInterval(timer))
    })
    const run = await runAction(options(w, {}, { signals: { when: drafting, send: ['SIGINT'] } }))
    expect(run.exitCode).toBe(130)
    expect(w.github.comments).toHaveLength(1)
    const last = w.github.comments[0]!.body
    expect(last).toContain('| Error code | `CANCELLED` |')
    expect(last).toContain('The job was cancelled')
  })

  it('is posted on the issue a run by hand (workflow_dispatch) works on, after the permission check', async () => {
    const w = await world()
    // As rerun-dispatch.yml runs it: the issue read with `gh issue view` into a file (#42).
    const dispatch = options(w)
    dispatch.event = { inputs: { 'issue-number': '42' }, sender: { login: 'maintainer' } }
    const run = await runAction(dispatch)
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(w.github.comments).toHaveLength(1)
    const [comment] = w.github.comments
    expect(comment!.issue).toBe(42)
    expect(comment!.history[0]).toMatch(/### 👀 Patchsmith is working/)
    expect(comment!.history.some((state) => state.includes('⏳ Drafting'))).toBe(true)
    expect(comment!.body).toContain('### ✅ Patchsmith fixed this')
    const paths = w.github.requests.map((r) => `${r.method} ${r.path}`)
    const permission = paths.indexOf('GET /repos/acme/widgets/collaborators/maintainer/permission')
    expect(permission, paths.join('\n')).toBeGreaterThanOrEqual(0)
    expect(permission).toBeLessThan(paths.indexOf('POST /repos/acme/widgets/issues/42/comments'))
  })

  it('is not posted for a refused dispatcher, nor on a run nobody asked for (a schedule)', async () => {
    const w = await world()
    w.github.route({
      method: 'GET',
      path: '/repos/acme/widgets/collaborators/passer-by/permission',
      body: { permission: 'read', role_name: 'read', user: { login: 'passer-by' } }
    })
    const refused = options(w)
    refused.event = { inputs: {}, sender: { login: 'passer-by' } }
    const run = await runActionInProcess(refused)
    expect(run.outputs['error-code']).toBe('SECURITY_VIOLATION')
    expect(w.github.comments.map((c) => c.body).join('\n')).not.toContain('is working on this')
    const scheduled = options(w)
    scheduled.event = { schedule: '0 3 * * *' }
    scheduled.env = { ...scheduled.env, GITHUB_EVENT_NAME: 'schedule' }
    const before = w.github.requests.length
    const quiet = await runActionInProcess(scheduled)
    expect(quiet.exitCode, quiet.stdout + quiet.stderr).toBe(0)
    expect(commentCalls(w.github).slice(before)).toEqual([])
  })

  it('makes no request when the setting is off, nor in a dry run', async () => {
    const cases: Record<string, string>[] = [
      { settings: 'progress-comment: false' },
      { 'dry-run': 'true' }
    ]
    for (const inputs of cases) {
      const w = await world()
      const run = await runActionInProcess(options(w, inputs))
      expect(run.exitCode, run.stdout + run.stderr).toBe(0)
      expect(w.github.requests).toEqual([])
    }
  })

  it('finds the first attempt’s comment on a rerun and edits it instead of posting another', async () => {
    const w = await world()
    await runActionInProcess(options(w))
    const rerun = options(w)
    rerun.env = { ...rerun.env, GITHUB_RUN_ATTEMPT: '2' }
    await runActionInProcess(rerun)
    expect(w.github.comments).toHaveLength(1)
    expect(commentCalls(w.github).filter((r) => r.method === 'POST')).toHaveLength(1)
    expect(commentCalls(w.github).filter((r) => r.method === 'GET')).toHaveLength(1)
  })
})
