/**
 * Plan approval by label through `node dist/index.js` against the loopback GitHub API and
 * model: a writer adding `patchsmith-approved` to the issue approves the plan of Patchsmith's
 * plan comment as it was at that moment (the label event's time against the comment's
 * updated_at), and the run uses exactly that plan; an outsider's label is refused as an
 * outsider's reply is, and a plan comment edited after the label is refused as plan-changed.
 */
import { describe, expect, it } from 'vitest'
import { lastUserMessage } from '../support/model-server.js'
import { githubTime } from '../support/github-server.js'
import { expectUntouched } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import {
  BRANCH,
  editPlan,
  labelApproval,
  postPlan,
  result,
  run,
  world as approvalWorld
} from './approval-world.js'

const cleanups = cleanupAfterEach()
const world = () => approvalWorld(cleanups)

describe('plan approval by label', () => {
  it('a writer’s label runs the plan as posted; an outsider’s label is refused', async () => {
    const w = await world()
    const hash = await postPlan(w)
    const comment = w.github.comments[0]!.body
    expect(comment).toContain('or by adding the label `patchsmith-approved` to the issue')
    expect(result(w, '100').awaiting_approval).toMatchObject({
      approve_label: 'patchsmith-approved',
      posted_on: 42
    })
    expect(result(w, '100').awaiting_approval!.not_posted).toBeUndefined()

    w.github.route({
      method: 'GET',
      path: /\/collaborators\/outsider\/permission$/,
      body: { permission: 'read', role_name: 'read', user: { login: 'outsider' } }
    })
    const outsider = await run(w, labelApproval('200', githubTime(), 'outsider'), {
      'require-actor-permission': 'read'
    })
    expect(outsider.exitCode).toBe(1)
    expect(result(w, '200').error).toMatchObject({
      code: 'SECURITY_VIOLATION',
      details: { rule: 'approver-not-writer' }
    })
    expect(w.model.requests).toHaveLength(0)
    expect(expectUntouched(w.work, BRANCH, w.base)).toEqual([])

    const approved = await run(w, labelApproval('300', githubTime()))
    expect(approved.exitCode, approved.stdout + approved.stderr).toBe(0)
    expect(approved.outputs.outcome).toBe('committed')
    expect(approved.stdout).toContain(
      `Plan ${hash}, approved by maintainer (label patchsmith-approved)`
    )
    expect(w.work.git('show', 'HEAD:README.md')).not.toContain('teh')
  })

  it('refuses a plan comment written after the label, and runs an edit made before it', async () => {
    const w = await world()
    const hash = await postPlan(w)
    const before = githubTime(new Date(Date.now() - 60_000))
    editPlan(w, 'Correct the typo', 'EDITED BY A MAINTAINER: correct the typo')
    // The label was added a minute before the edit: the edited plan is not the one approved.
    const late = await run(w, labelApproval('200', before))
    expect(late.exitCode).toBe(1)
    const refused = result(w, '200').error!
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', details: { rule: 'plan-changed' } })
    expect(refused.message).toContain('after maintainer\'s label "patchsmith-approved" was added')
    expect(w.model.requests).toHaveLength(0)
    expect(expectUntouched(w.work, BRANCH, w.base)).toEqual([])

    // Added after the edit: the label approves the plan as edited, and that plan runs.
    const approved = await run(w, labelApproval('300', githubTime()))
    expect(approved.exitCode, approved.stdout + approved.stderr).toBe(0)
    expect(approved.outputs.outcome).toBe('committed')
    expect(approved.stdout).not.toContain(`Plan ${hash},`)
    const drafts = w.model.requests
      .map(lastUserMessage)
      .filter((text) => text.includes('README.md'))
    expect(drafts.some((text) => text.includes('EDITED BY A MAINTAINER'))).toBe(true)
  })
})
