import { describe, expect, it } from 'vitest'
import type { LoopbackPullRequest } from '../support/github-server.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import {
  BRANCH,
  FIRST,
  CHECK,
  REPLIES,
  thread,
  text,
  pullRequest,
  run,
  resultOf,
  followUpWorld
} from '../support/follow-up-world.js'

/** Which events and pull requests drive a follow-up, and the rounds it may take. */

const cleanups = cleanupAfterEach()
const { pullRequestRepo, servers } = followUpWorld(cleanups)

// In-process (src/main.ts's run()), like follow-up-threads.test.ts.
describe('follow-up on review threads', () => {
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
})
