/**
 * Plan approval through `node dist/index.js` against the loopback GitHub API and model: a run
 * with `plan-approval: required` posts its plan in the progress comment and ends awaiting
 * approval (step green, nothing changed, no model call); a writer's `/patchsmith approve <hash>`
 * runs exactly that plan, an edited one included; an outsider's approval and a plan edited after
 * the approval are refused before anything is read or changed.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runAction, type ActionRunOptions } from '../support/action-runner.js'
import { lastUserMessage, replyByMatch, startModelServer } from '../support/model-server.js'
import { startGitHubServer } from '../support/github-server.js'
import { TYPO_EXAMPLE, expectUntouched, typoRepo, typoReplies } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { planHash } from '../../src/contract/index.js'

const cleanups = cleanupAfterEach()
const ISSUE = JSON.parse(readFileSync(`${TYPO_EXAMPLE}/issue.json`, 'utf8')) as {
  number: number
  title: string
  body: string
}
const BRANCH = 'docs/42-fix-typo-readme'

async function world() {
  const work = typoRepo()
  cleanups.push(() => work.cleanup())
  const model = await startModelServer(
    replyByMatch(
      [
        {
          contains: 'Conventional Commit',
          reply: { content: 'docs(readme): correct typo in install' }
        }
      ],
      { content: typoReplies().replies[0]!.reply }
    )
  )
  cleanups.push(() => model.close())
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  return { work, model, github, base: work.git('rev-parse', 'HEAD') }
}
type World = Awaited<ReturnType<typeof world>>

function run(
  w: World,
  start: { runId: string; event: object; eventName: string },
  inputs: Record<string, string> = {}
) {
  const options: ActionRunOptions = {
    workspace: w.work.dir,
    event: start.event,
    env: {
      GITHUB_API_URL: w.github.url,
      GITHUB_RUN_ID: start.runId,
      GITHUB_EVENT_NAME: start.eventName
    },
    inputs: {
      // The same step for both events: the approval run reads the plan from the comment.
      'fix-plan': `${TYPO_EXAMPLE}/fix-plan.json`,
      'triage-result': `${TYPO_EXAMPLE}/triage-result.json`,
      'base-url': w.model.url,
      'api-key': 'sk-test-approval-0001',
      'github-token': 'ghs_approvaltoken00000000000000000000000',
      'output-path': `${w.work.root}/result-${start.runId}.json`,
      'log-dir': `${w.work.root}/logs-${start.runId}`,
      'validation-commands': 'npm run lint',
      push: 'false',
      settings: 'plan-approval: required',
      ...inputs
    }
  }
  return runAction(options)
}

const labelled = {
  runId: '100',
  eventName: 'issues',
  event: { action: 'labeled', issue: ISSUE, sender: { login: 'maintainer', type: 'User' } }
}

function approval(body: string, login = 'maintainer', issue: object = ISSUE) {
  return {
    runId: '200',
    eventName: 'issue_comment',
    event: {
      action: 'created',
      issue,
      comment: { body, user: { login } },
      sender: { login, type: 'User' }
    }
  }
}

function result(w: World, runId: string) {
  return JSON.parse(readFileSync(`${w.work.root}/result-${runId}.json`, 'utf8')) as {
    success: boolean
    error?: { code: string; details?: { rule?: string } }
    awaiting_approval?: { plan_hash: string; approve_command: string }
  }
}

/** Run 1: the plan posted; its hash. */
async function postPlan(w: World): Promise<string> {
  const posted = await run(w, labelled)
  expect(posted.exitCode, posted.stdout + posted.stderr).toBe(0)
  const hash = result(w, '100').awaiting_approval!.plan_hash
  expect(posted.outputs).toMatchObject({
    outcome: 'awaiting-approval',
    success: 'false',
    'error-code': ''
  })
  return hash
}

/** A writer edits the plan's JSON in Patchsmith's comment, as GitHub lets one do. */
function editPlan(w: World, from: string, to: string): void {
  const comment = w.github.comments[0]!
  const at = comment.body.indexOf('<!-- patchsmith:plan-json -->')
  const json = comment.body.slice(at)
  expect(json).toContain(from)
  comment.body = comment.body.slice(0, at) + json.replace(from, to)
}

describe('plan approval', () => {
  it('posts the plan, changes nothing, and a writer’s approval runs exactly that plan', async () => {
    const w = await world()
    const hash = await postPlan(w)
    const plan = JSON.parse(readFileSync(`${TYPO_EXAMPLE}/fix-plan.json`, 'utf8'))
    const triage = JSON.parse(readFileSync(`${TYPO_EXAMPLE}/triage-result.json`, 'utf8'))
    expect(hash).toBe(planHash({ issue: ISSUE, triage_result: triage, fix_plan: plan }))
    // Loaded and guarded only: no model call, no branch, nothing on origin.
    expect(w.model.requests).toHaveLength(0)
    expect(expectUntouched(w.work, BRANCH, w.base)).toEqual([])
    expect(w.github.comments).toHaveLength(1)
    const comment = w.github.comments[0]!.body
    expect(comment).toContain('<!-- patchsmith:plan -->')
    expect(comment).toContain(`/patchsmith approve ${hash}`)
    expect(comment).toContain('| `README.md` | MODIFY |')
    expect(comment).toContain('- `npm run lint`')
    expect(comment).toMatch(/#### Reproduction\n\nNone: the triage classifies the issue as docs/)
    // No failure label, no failure comment: awaiting approval is not a failure.
    expect(w.github.requests.filter((r) => r.path.endsWith('/labels'))).toHaveLength(0)

    const approved = await run(w, approval(`LGTM\n/patchsmith approve ${hash}`))
    expect(approved.exitCode, approved.stdout + approved.stderr).toBe(0)
    expect(approved.outputs.outcome).toBe('committed')
    expect(approved.stdout).toContain(`Plan ${hash}, approved by maintainer`)
    expect(w.work.git('show', 'HEAD:README.md')).not.toContain('teh')
    expect(w.work.git('log', '-1', '--format=%s')).toBe('docs(readme): correct typo in install')
  })

  it('runs an edited plan once its new hash is approved, and names that hash to an approval without one', async () => {
    const w = await world()
    const hash = await postPlan(w)
    editPlan(w, 'Correct the typo', 'EDITED BY A MAINTAINER: correct the typo')
    const bare = await run(w, approval('/patchsmith approve'))
    expect(bare.exitCode).toBe(1)
    const refused = result(w, '200').error!
    expect(refused).toMatchObject({
      code: 'INVALID_INPUT',
      details: { rule: 'approval-without-hash' }
    })
    const edited = (refused.details as { now: string }).now
    expect(edited).toMatch(/^[0-9a-f]{24}$/)
    expect(edited).not.toBe(hash)
    expect(w.model.requests).toHaveLength(0)

    const approved = await run(w, { ...approval(`/patchsmith approve ${edited}`), runId: '300' })
    expect(approved.exitCode, approved.stdout + approved.stderr).toBe(0)
    expect(approved.outputs.outcome).toBe('committed')
    const drafts = w.model.requests
      .map(lastUserMessage)
      .filter((text) => text.includes('README.md'))
    expect(drafts.some((text) => text.includes('EDITED BY A MAINTAINER'))).toBe(true)
  })

  it('refuses an outsider’s approval, even where outsiders may start a run', async () => {
    const w = await world()
    const hash = await postPlan(w)
    w.github.route({
      method: 'GET',
      path: /\/collaborators\/outsider\/permission$/,
      body: { permission: 'read', role_name: 'read', user: { login: 'outsider' } }
    })
    const outsider = await run(w, approval(`/patchsmith approve ${hash}`, 'outsider'), {
      'require-actor-permission': 'read'
    })
    expect(outsider.exitCode).toBe(1)
    expect(result(w, '200').error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'approver-not-writer' }
    })
    expect(w.model.requests).toHaveLength(0)
    expect(expectUntouched(w.work, BRANCH, w.base)).toEqual([])
  })

  it('refuses a plan edited after the approval, and an issue edited after it', async () => {
    const w = await world()
    const hash = await postPlan(w)
    editPlan(w, '"npm run lint"\n', '"npm run lint && rm -rf docs"\n')
    const changed = await run(w, approval(`/patchsmith approve ${hash}`))
    expect(changed.exitCode).toBe(1)
    expect(result(w, '200').error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { rule: 'plan-changed' }
    })

    editPlan(w, '"npm run lint && rm -rf docs"\n', '"npm run lint"\n')
    const reworded = { ...ISSUE, body: `${ISSUE.body}\nAlso delete the LICENSE.` }
    const issueEdited = await run(w, {
      ...approval(`/patchsmith approve ${hash}`, 'maintainer', reworded),
      runId: '300'
    })
    expect(issueEdited.exitCode).toBe(1)
    expect(result(w, '300').error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { rule: 'plan-changed' }
    })
    expect(w.model.requests).toHaveLength(0)
    expect(expectUntouched(w.work, BRANCH, w.base)).toEqual([])
  })
})
