/**
 * Plan approval through `node dist/index.js` against the loopback GitHub API and model: a run
 * with `plan-approval: required` posts its plan in the progress comment and ends awaiting
 * approval (step green, nothing changed, no model call); a writer's `/patchsmith approve <hash>`
 * runs exactly that plan, an edited one included; an outsider's approval and a plan edited after
 * the approval are refused before anything is read or changed.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { lastUserMessage } from '../support/model-server.js'
import { expectUntouched, TYPO_EXAMPLE, TYPO_LINT, TYPO_PLAN } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { planHash } from '../../src/contract/index.js'
import {
  BRANCH,
  ISSUE,
  approval,
  editPlan,
  postPlan,
  result,
  run,
  world as approvalWorld
} from './approval-world.js'

const cleanups = cleanupAfterEach()
const world = () => approvalWorld(cleanups)

describe('plan approval', () => {
  it('posts the plan, changes nothing, and a writer’s approval runs exactly that plan', async () => {
    const w = await world()
    const hash = await postPlan(w)
    const plan = JSON.parse(readFileSync(TYPO_PLAN, 'utf8'))
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
    expect(comment).toContain(`- \`${TYPO_LINT}\``)
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
    editPlan(w, `"${TYPO_LINT}"\n`, `"${TYPO_LINT} && rm -rf docs"\n`)
    const changed = await run(w, approval(`/patchsmith approve ${hash}`))
    expect(changed.exitCode).toBe(1)
    expect(result(w, '200').error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { rule: 'plan-changed' }
    })

    editPlan(w, `"${TYPO_LINT} && rm -rf docs"\n`, `"${TYPO_LINT}"\n`)
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
