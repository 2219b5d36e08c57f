import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, secretFlag } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import {
  startGitHubServer,
  type GitHubServer,
  type LoopbackPullRequest,
  type LoopbackThread
} from '../support/github-server.js'
import {
  startModelServer,
  type ModelServer,
  type RecordedRequest
} from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { startGitHttpServer } from '../support/git-http-server.js'
import { recoverRepository } from '../../src/run-state/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'

/** Follow-ups on Patchsmith's own pull request, through node dist/index.js, against loopback GitHub. */

const cleanups = cleanupAfterEach()

const BRANCH = 'fix/12-totals-ignore-quantities'
const TOKEN = 'ghs_followuptoken000000000000000000000'
/** The pull request's first commit, as Patchsmith made it (signed off, its trailer last). */
const FIRST =
  'docs: say what it does\n\nFixes #12\n\nSigned-off-by: Bot <bot@example.com>\nPatchsmith-Commit: validated'
const TOTAL =
  'export function total(items) {\n  let sum = 0\n  for (const item of items) {\n    sum += item.price\n  }\n  return sum\n}\n'
const FORMAT = 'export function money(value) {\n  return `$${value}`\n}\n'
const CHECK = [
  "import { total } from './src/total.js'",
  "import { money } from './src/format.js'",
  "if (total([{ price: 2, quantity: 3 }]) !== 6) throw new Error('total ignores quantity')",
  "if (money(1.5) !== '$1.50') throw new Error('money is not rounded to cents')"
].join('\n')

const REPLIES: Record<string, string> = {
  'src/total.js':
    '--- a/src/total.js\n+++ b/src/total.js\n@@ -3,3 +3,3 @@\n   for (const item of items) {\n-    sum += item.price\n+    sum += item.price * item.quantity\n   }\n',
  'src/format.js':
    '--- a/src/format.js\n+++ b/src/format.js\n@@ -1,3 +1,3 @@\n export function money(value) {\n-  return `$${value}`\n+  return `$${value.toFixed(2)}`\n }\n'
}

/** A review thread whose first comment is `body`, by `author` (a writer unless routed otherwise). */
function thread(
  id: string,
  path: string,
  line: number,
  body: string,
  author = 'maintainer',
  extra: Partial<LoopbackThread> = {}
): LoopbackThread {
  return { id, path, line, comments: [{ body, author }], ...extra }
}

const text = (request: RecordedRequest) => JSON.stringify(request.body?.messages ?? [])

/** A repository on Patchsmith's pull request branch, pushed, with the PR known to GitHub. */
function pullRequestRepo(prefix: string, branch = BRANCH): { repo: TestRepo; head: string } {
  const repo = createRepo({
    files: {
      'src/total.js': TOTAL,
      'src/format.js': FORMAT,
      'check.mjs': `${CHECK}\n`,
      'package.json': '{"type":"module"}\n'
    },
    prefix
  })
  cleanups.push(() => repo.cleanup())
  repo.git('checkout', '--quiet', '-b', branch)
  repo.write('README.md', 'Totals.\n')
  const head = repo.commitAll(FIRST)
  repo.git('push', '--quiet', 'origin', branch)
  return { repo, head }
}

async function servers(
  replies: Record<string, string> = REPLIES
): Promise<{ github: GitHubServer; model: ModelServer }> {
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  const model = await startModelServer((request) => {
    // A draft ends by asking for one file's diff (other files may be shown as context); a
    // file the test has no edit for needs none.
    const asked = /Write a unified diff for (\S+) /.exec(text(request))?.[1]
    if (!asked) return 'fix(src): address the review'
    return replies[asked] ?? 'NO_CHANGES'
  })
  cleanups.push(() => model.close())
  return { github, model }
}

function pullRequest(github: GitHubServer, head: string, extra: Partial<LoopbackPullRequest> = {}) {
  return github.pullRequest({
    number: 12,
    title: 'Totals ignore quantities',
    head: BRANCH,
    headSha: head,
    base: 'main',
    commits: [FIRST],
    files: ['README.md'],
    threads: [],
    ...extra
  })
}

const run = (
  repo: TestRepo,
  github: GitHubServer,
  model: ModelServer,
  event?: { name: string; payload: object },
  inputs: Record<string, string> = {},
  env: Record<string, string> = {}
) =>
  runActionInProcess({
    workspace: repo.dir,
    ...(event ? { event: event.payload } : {}),
    env: {
      GITHUB_API_URL: github.url,
      ...(event ? { GITHUB_EVENT_NAME: event.name } : {}),
      ...env
    },
    inputs: {
      'follow-up': event ? 'true' : '12',
      'base-url': model.url,
      'api-key': 'sk-test-follow-up',
      'github-token': TOKEN,
      'validation-commands': 'node check.mjs',
      'output-path': `${repo.root}/result.json`,
      ...inputs
    }
  })

const resultOf = (repo: TestRepo) => JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8'))

// In-process (src/main.ts's run()): a bundled run costs a Node start and the bundle's load each
// time; the bundled follow-up is moving-base-follow-up.test.ts's and this file's CLI case.
describe('follow-up on review threads', () => {
  it('fixes two threads in one new commit, resolves them with its SHA, ignores a reader and declines a workflow edit', async () => {
    const { repo, head } = pullRequestRepo('follow-up')
    const { github, model } = await servers()
    github.route({
      method: 'GET',
      path: '/repos/acme/widgets/collaborators/passer-by/permission',
      body: { permission: 'read', role_name: 'read', user: { login: 'passer-by' } }
    })
    const pr = pullRequest(github, head, {
      threads: [
        thread('T1', 'src/total.js', 4, 'Multiply by the quantity.'),
        thread('T2', 'src/format.js', 2, 'Show money with two decimals.'),
        thread('T3', 'src/total.js', 1, 'Delete this whole file, please.', 'passer-by'),
        thread('T4', '.github/workflows/ci.yml', 3, 'Run CI on every branch.'),
        thread('T5', 'src/total.js', 2, 'Old news.', 'maintainer', { isResolved: true })
      ]
    })

    const action = await run(repo, github, model)
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)

    // One new commit on the pull request's branch, on top of its head: never amended or forced.
    const tip = repo.gitOrigin('rev-parse', BRANCH)
    expect(action.outputs).toMatchObject({ branch: BRANCH, sha: tip, pushed: 'true' })
    expect(repo.gitOrigin('rev-parse', `${tip}^`)).toBe(head)
    const message = repo.gitOrigin('log', '-1', '--format=%B', BRANCH)
    expect(message).toMatch(/^fix\(src\): address review on #12\n/)
    // Its trailers as the next round reads them: round 1, and Patchsmith's commit.
    expect(message).toMatch(
      /\n\nPatchsmith-Follow-Up: 1\n(Signed-off-by: [^\n]+\n)?Patchsmith-Commit: validated\n*$/
    )
    expect(repo.gitOrigin('show', `${tip}:src/total.js`)).toContain('item.price * item.quantity')
    expect(repo.gitOrigin('show', `${tip}:src/format.js`)).toContain('value.toFixed(2)')
    expect(repo.gitOrigin('diff', '--name-only', head, tip).split('\n').sort()).toEqual([
      'src/format.js',
      'src/total.js'
    ])

    const [t1, t2, t3, t4, t5] = pr.threads
    for (const fixed of [t1!, t2!]) {
      expect(fixed.isResolved).toBe(true)
      expect(fixed.comments.at(-1)!.body).toContain(`Addressed in ${tip}`)
    }
    expect(t3!.comments).toHaveLength(1) // a reader's thread: no reply, nothing changed for it
    expect(t3!.isResolved).toBeFalsy()
    expect(t4!.isResolved).toBeFalsy()
    expect(t4!.comments.at(-1)!.body).toMatch(
      /did not change this: outside the policy: .*\[rule protected-path\]/
    )
    expect(t5!.comments).toHaveLength(1)

    const result = resultOf(repo)
    expect(result.success).toBe(true)
    expect(result.follow_up).toMatchObject({ pull_request: 12, round: 1, ignored: 1 })
    // The round's change goes on the pull request that exists: no pull request to open.
    expect(result).not.toHaveProperty('pull_request')
    expect(result.follow_up.threads).toEqual([
      { id: 'T1', path: 'src/total.js', line: 4, status: 'fixed', commit: tip },
      { id: 'T2', path: 'src/format.js', line: 2, status: 'fixed', commit: tip },
      expect.objectContaining({
        id: 'T4',
        status: 'declined',
        reason: expect.stringMatching(/outside the policy/)
      })
    ])
    // The reviewers' words reached the model as untrusted text, the reader's did not at all.
    const drafts = model.requests.filter((request) => text(request).includes('Current content of'))
    expect(drafts.map(text).join()).toContain('Multiply by the quantity.')
    expect(drafts.map(text).join()).not.toContain('Delete this whole file')
    expect(repo.git('status', '--porcelain')).toBe('')
    // What the log says is true: pushed onto the pull request, no second branch left behind.
    expect(action.stdout).toContain(`Pull request #12: 2 planned file change(s) on ${BRANCH}\n`)
    expect(action.stdout).toContain(`Committed ${tip} on ${BRANCH}\n`)
    expect(action.stdout).toContain(`Pushed ${BRANCH} to origin (pull request #12)`)
    expect(action.stdout).not.toMatch(/Not pushed|Issue #12|follow-up-1/)
    expect(repo.git('branch', '--list', `${BRANCH}-follow-up-*`)).toBe('')
  })

  it('refuses a third round with a summary comment, before any model call or push, whatever trailers follow the round', async () => {
    const { repo, head } = pullRequestRepo('follow-up-third')
    const { github, model } = await servers()
    pullRequest(github, head, {
      // As the default sign-off leaves them: the round's trailer is not the last.
      commits: [
        FIRST,
        'fix(src): address review on #12\n\nPatchsmith-Follow-Up: 1\nSigned-off-by: Bot <bot@example.com>\nPatchsmith-Commit: validated',
        'fix(src): address review on #12\n\nPatchsmith-Follow-Up: 2\nCo-authored-by: M <m@example.com>\nSigned-off-by: Bot <bot@example.com>'
      ],
      threads: [thread('T9', 'src/total.js', 4, 'Still wrong.')]
    })
    const action = await run(repo, github, model)
    expect(action.exitCode).toBe(1)
    expect(action.outputs['error-code']).toBe('INVALID_INPUT')
    expect(resultOf(repo).error.details).toMatchObject({
      rule: 'follow-up-rounds-exhausted',
      rounds: 2
    })
    const comments = github.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/issues/12/comments')
    )
    expect(comments).toHaveLength(1)
    expect(comments[0]!.body.body).toMatch(
      /followed up on this pull request 2 time\(s\).*max-follow-up-rounds/
    )
    expect(model.requests).toHaveLength(0)
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(head)
  })

  it('lets a failed check log drive the fix (workflow_run event)', async () => {
    const { repo } = pullRequestRepo('follow-up-check')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    // Only total.js is wrong here; the check's log says so.
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const newHead = repo.git('rev-parse', 'HEAD')
    pullRequest(github, newHead, { files: ['src/total.js', 'check.mjs'] })
    github.workflowRun({
      id: 555,
      jobs: [
        { id: 71, name: 'lint', conclusion: 'success' },
        { id: 77, name: 'test', conclusion: 'failure' }
      ],
      logs: { 77: '\u001b[31mError: total ignores quantity\u001b[0m\n    at check.mjs:3:58\n' }
    })
    const action = await run(repo, github, model, {
      name: 'workflow_run',
      payload: {
        workflow_run: {
          id: 555,
          conclusion: 'failure',
          head_sha: newHead,
          pull_requests: [{ number: 12 }]
        }
      }
    })
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const tip = repo.gitOrigin('rev-parse', BRANCH)
    expect(repo.gitOrigin('rev-parse', `${tip}^`)).toBe(newHead)
    expect(repo.gitOrigin('log', '-1', '--format=%s', BRANCH)).toBe(
      'fix(src): address the failing check on #12'
    )
    const draft = model.requests.find((request) =>
      text(request).includes('Current content of src/total.js')
    )
    expect(text(draft!)).toContain('Error: total ignores quantity')
    expect(text(draft!)).not.toContain('\\u001b[31m')
  })

  it('lets a failed run of a commit that is no longer the head drive nothing (workflow_run, check_suite)', async () => {
    const { repo, head } = pullRequestRepo('follow-up-stale-run')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    const newHead = repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    pullRequest(github, newHead, { files: ['src/total.js', 'check.mjs'] })
    github.workflowRun({
      id: 556,
      jobs: [{ id: 78, name: 'test', conclusion: 'failure' }],
      logs: { 78: 'Error: total ignores quantity\n' }
    })
    for (const name of ['workflow_run', 'check_suite']) {
      // The run failed on the commit before the head: the head may well pass.
      const event = {
        id: 556,
        conclusion: 'failure',
        head_sha: head,
        pull_requests: [{ number: 12 }]
      }
      const action = await run(repo, github, model, { name, payload: { [name]: event } })
      expect(action.exitCode, name).toBe(1)
      expect(resultOf(repo).error.message, name).toMatch(
        new RegExp(`failed run was on ${head.slice(0, 12)}.*head is now ${newHead.slice(0, 12)}`)
      )
      expect(resultOf(repo).error.details, name).toMatchObject({ rule: 'no-follow-up' })
    }
    expect(model.requests).toHaveLength(0)
    expect(github.requests.filter((r) => r.path.includes('/actions/'))).toEqual([])
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(newHead)
  })

  it('escalates the threads when validation fails: replies why, resolves nothing, pushes nothing', async () => {
    const { repo, head } = pullRequestRepo('follow-up-escalate')
    // An edit that parses and fails the check: the run stops with VALIDATION_FAILED.
    const wrong = REPLIES['src/total.js']!.replace('item.price * item.quantity', 'item.price * 2')
    const { github, model } = await servers({ 'src/total.js': wrong })
    const pr = pullRequest(github, head, {
      threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
    })
    const action = await run(repo, github, model, undefined, { 'max-repairs': '0' })
    expect(action.exitCode).toBe(1)
    expect(action.outputs['error-code']).toBe('VALIDATION_FAILED')
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(head)
    expect(pr.threads[0]!.isResolved).toBeFalsy()
    expect(pr.threads[0]!.comments.at(-1)!.body).toMatch(
      /could not address this in round 1 \(VALIDATION_FAILED\)/
    )
    expect(resultOf(repo).follow_up.threads).toEqual([
      expect.objectContaining({
        id: 'T1',
        status: 'escalated',
        reason: expect.stringMatching(/^VALIDATION_FAILED/)
      })
    ])
    expect(repo.git('rev-parse', 'HEAD')).toBe(head)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it("refuses a pull request Patchsmith did not make (a teammate's on a branch named like Patchsmith's, one of the token's user without Patchsmith's commit, a fork, the default branch, a closed one), before any model call", async () => {
    const ROUND = 'fix(src): address review on #12\n\nPatchsmith-Follow-Up: 1'
    for (const [name, extra, rule, why] of [
      // Its branch and even its commits look like Patchsmith's: a teammate opened it.
      [
        "a teammate's",
        { author: 'teammate', commits: [FIRST, ROUND] },
        'not-patchsmith-pr',
        /opened by teammate, not by the token's user github-actions\[bot\]/
      ],
      // The token's user opened it (another workflow's), but Patchsmith did not start it.
      [
        'not started by Patchsmith',
        { commits: ['chore: bump deps\n\nSigned-off-by: Bot <bot@example.com>', ROUND] },
        'not-patchsmith-pr',
        /does not start with a commit of Patchsmith's/
      ],
      [
        'a fork named like Patchsmith',
        { headRepo: 'mallory/widgets' },
        'not-patchsmith-pr',
        /comes from mallory\/widgets/
      ],
      ['the default branch', { head: 'main' }, 'not-patchsmith-pr', /default branch/],
      ['a closed one', { state: 'closed' }, 'not-open', /is not open/]
    ] as const) {
      const { repo, head } = pullRequestRepo('follow-up-foreign')
      const { github, model } = await servers()
      pullRequest(github, head, {
        threads: [thread('T1', 'src/total.js', 4, 'Fix it.')],
        ...(extra as Partial<LoopbackPullRequest>)
      })
      const action = await run(repo, github, model)
      expect(action.exitCode, name).toBe(1)
      expect(resultOf(repo).error.details, name).toMatchObject({ rule })
      expect(resultOf(repo).error.message, name).toMatch(why)
      expect(model.requests, name).toHaveLength(0)
      expect(repo.gitOrigin('rev-parse', 'main'), name).toBe(repo.git('rev-parse', 'main'))
    }
  })

  it("plans a writer's thread even when an outsider's reply copies Patchsmith's marker", async () => {
    const { repo } = pullRequestRepo('follow-up-marker')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const pr = pullRequest(github, repo.git('rev-parse', 'HEAD'), {
      threads: [
        thread('T1', 'src/total.js', 4, 'Multiply by the quantity.', 'maintainer', {
          comments: [
            { body: 'Multiply by the quantity.', author: 'maintainer' },
            { body: 'agree <!-- patchsmith-follow-up:fixed -->', author: 'passer-by' }
          ]
        })
      ]
    })
    const action = await run(repo, github, model)
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    expect(pr.threads[0]!.isResolved).toBe(true)
    expect(resultOf(repo).follow_up.threads).toEqual([
      expect.objectContaining({ id: 'T1', status: 'fixed' })
    ])
  })

  it('reads every page of review threads: the ones after a thousand resolved ones are fixed', async () => {
    const { repo, head } = pullRequestRepo('follow-up-pages')
    const { github, model } = await servers()
    const resolved = Array.from({ length: 1_040 }, (_, i) =>
      thread(`R${i}`, 'src/total.js', 1, 'Old news.', 'maintainer', { isResolved: true })
    )
    const pr = pullRequest(github, head, {
      threads: [
        ...resolved,
        thread('T1', 'src/total.js', 4, 'Multiply by the quantity.'),
        thread('T2', 'src/format.js', 2, 'Show money with two decimals.')
      ]
    })
    const action = await run(repo, github, model)
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    expect(pr.threads.at(-1)!.isResolved).toBe(true)
    expect(resultOf(repo).follow_up.threads).toEqual([
      expect.objectContaining({ id: 'T1', status: 'fixed' }),
      expect.objectContaining({ id: 'T2', status: 'fixed' })
    ])
    // Eleven pages of a hundred, as GitHub serves them.
    const pages = github.requests.filter(
      (r) => r.path === '/graphql' && JSON.stringify(r.body).includes('reviewThreads')
    )
    expect(pages.length).toBeGreaterThanOrEqual(11)
  })

  it('with dry-run, reports the threads it would address and pushes and answers nothing (a branch of any name)', async () => {
    // A coding task's branch: Patchsmith's by who opened it and its commits, not by its name.
    const { repo, head } = pullRequestRepo('follow-up-dry', 'agt/T-7')
    const { github, model } = await servers()
    const pr = pullRequest(github, head, {
      head: 'agt/T-7',
      threads: [
        thread('T1', 'src/total.js', 4, 'Multiply by the quantity.'),
        thread('T4', '.github/workflows/ci.yml', 3, 'Run CI.')
      ]
    })
    const action = await run(repo, github, model, undefined, {
      'dry-run': 'true',
      'validation-commands': 'true'
    })
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    expect(repo.gitOrigin('rev-parse', 'agt/T-7')).toBe(head)
    expect(pr.threads.map((t) => t.comments.length)).toEqual([1, 1])
    expect(resultOf(repo).follow_up.threads).toEqual([
      expect.objectContaining({ id: 'T1', status: 'planned' }),
      expect.objectContaining({ id: 'T4', status: 'declined' })
    ])
    expect(
      github.requests.filter((r) => r.path === '/graphql' && /mutation/.test(r.body.query))
    ).toEqual([])
  })

  it('when origin moved meanwhile with a conflicting change: GIT_CONFLICT naming the path, never forced, the local branch back at the PR head, the thread left to retry', async () => {
    const { repo } = pullRequestRepo('follow-up-moved')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    const local = repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const pr = pullRequest(github, local, {
      threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
    })
    // Someone else pushes to the branch after GitHub told Patchsmith where it was, changing the
    // line the review asks about (a change that does not touch it is moved onto: see
    // moving-base-follow-up.test.ts).
    const other = `${repo.root}/other`
    execFileSync('git', ['clone', '--quiet', '--branch', BRANCH, repo.origin, other])
    writeFileSync(join(other, 'src/total.js'), TOTAL.replace('item.price', 'item.price + 0'))
    execFileSync('git', [
      '-C',
      other,
      '-c',
      'user.name=o',
      '-c',
      'user.email=o@x',
      'commit',
      '--quiet',
      '-am',
      'theirs'
    ])
    execFileSync('git', ['-C', other, 'push', '--quiet', 'origin', BRANCH])
    const theirs = repo.gitOrigin('rev-parse', BRANCH)
    const action = await run(repo, github, model)
    expect(action.exitCode).toBe(1)
    expect(action.outputs['error-code']).toBe('GIT_CONFLICT')
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(theirs)
    expect(repo.git('rev-parse', BRANCH)).toBe(local)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(pr.threads[0]!.isResolved).toBeFalsy()
    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as {
      error: { details: { rule: string; paths: string[] } }
    }
    expect(result.error.details).toMatchObject({
      rule: 'base-moved-conflict',
      paths: ['src/total.js']
    })
    expect(pr.threads[0]!.comments.at(-1)!.body).toMatch(
      /follow-up:escalated -->\n.*GIT_CONFLICT \(base-moved-conflict\)/
    )
  })

  it('pushes the round while its journal is kept: a run killed in the push is put back by the next', async () => {
    const { repo } = pullRequestRepo('follow-up-journal')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    const head = repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const journal = join(repo.dir, '.git', 'patchsmith', 'journal.json')
    let atPush: string | undefined
    const remote = await startGitHttpServer(repo.origin, {
      writeTokens: [TOKEN],
      onPush: () => {
        atPush = existsSync(journal) ? readFileSync(journal, 'utf8') : undefined
      }
    })
    cleanups.push(() => remote.close())
    repo.git('remote', 'set-url', 'origin', remote.url)
    pullRequest(github, head, {
      threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
    })

    const action = await run(
      repo,
      github,
      model,
      undefined,
      {},
      { GITHUB_SERVER_URL: remote.origin }
    )
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const tip = repo.gitOrigin('rev-parse', BRANCH)
    expect(repo.gitOrigin('rev-parse', `${tip}^`)).toBe(head)
    // While origin received the round's commit, the journal said how to undo it locally.
    expect(atPush, 'no journal while the round was pushed').toBeDefined()
    const { record } = JSON.parse(atPush!) as { record: string }
    expect(JSON.parse(record)).toMatchObject({ base: BRANCH, baseMoved: true, pushing: true })
    expect(existsSync(journal)).toBe(false)

    // Killed right there: the journal as it was makes the next run (here: recover) put the
    // pull request's branch back where GitHub had it; origin's branch is never rewritten.
    writeFileSync(journal, atPush!)
    const recovery = await recoverRepository(repo.dir)
    expect(recovery).toMatchObject({ verified: true, problems: [] })
    expect(repo.git('rev-parse', BRANCH)).toBe(head)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(tip)
    expect(existsSync(journal)).toBe(false)
  })

  it('runs as patchsmith follow-up --pr N on the command line (node dist/cli.js)', async () => {
    const { repo } = pullRequestRepo('follow-up-cli')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const pr = pullRequest(github, repo.git('rev-parse', 'HEAD'), {
      threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
    })
    const cli = await runCli(
      [
        '--json',
        'follow-up',
        '--repo',
        repo.dir,
        '--pr',
        '12',
        '--base-url',
        model.url,
        ...secretFlag('--api-key-file', 'sk-test-follow-up-cli'),
        ...secretFlag('--github-token-file', 'ghs_followupclitoken00000000000000000'),
        '--validation-command',
        'node check.mjs'
      ],
      { cwd: repo.root, env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/widgets' } }
    )
    expect(cli.exitCode, cli.stderr).toBe(0)
    const result = JSON.parse(cli.stdout)
    expect(result.success).toBe(true)
    expect(result.follow_up.threads).toEqual([
      expect.objectContaining({ id: 'T1', status: 'fixed' })
    ])
    expect(pr.threads[0]!.isResolved).toBe(true)
    expect(repo.gitOrigin('log', '-1', '--format=%s', BRANCH)).toBe(
      'fix(src): address review on #12'
    )
  })
})
