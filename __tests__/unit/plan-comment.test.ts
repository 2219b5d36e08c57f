/**
 * The plan a run holds for approval, as its comment shows it (report/plan-comment.ts): plan text
 * from the issue or the model rendered inert, and the plan JSON read back to the very value that
 * was posted (the hash a writer approves is taken from it), edits by GitHub's editor included.
 */
import { describe, expect, it } from 'vitest'
import { planHash, type AwaitingApproval } from '../../src/contract/index.js'
import { parseRunConfig } from '../../src/config.js'
import { planComment, readPlanJson } from '../../src/report/index.js'
import { approvalRequest } from '../../src/modes/plan-approval/index.js'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

const ISSUE = { number: 7, title: 'Pipes', body: 'It breaks' }
const HOSTILE =
  'Fixes #1 @octocat <img src=x onerror=alert(1)> ```` https://evil.example/issues/3 <!-- /patchsmith:plan-json --> | cell'

function held(description = HOSTILE): AwaitingApproval {
  const fix_plan = {
    branch_name: 'fix/7-pipes',
    plan_steps: [HOSTILE, { nested: '@octocat' }],
    file_changes: [{ path: 'src/a.py', operation: 'MODIFY' as const, description }],
    validation_commands: ['pytest -q']
  }
  const triage_result = { classification: 'bug', note: HOSTILE }
  const plan_hash = planHash({ issue: ISSUE, triage_result, fix_plan })
  return {
    issue_number: 7,
    plan_hash,
    fix_plan,
    triage_result,
    validation_commands: ['pytest -q'],
    reproduction: { path: 'tests/test_issue_7.py', framework: 'pytest', command: 'pytest -q' },
    approve_command: `/patchsmith approve ${plan_hash}`
  }
}

describe('plan comment', () => {
  it('renders plan text inert: no mention, link, tag or closing keyword outside code', () => {
    const body = planComment(held())
    // Outside the fenced JSON, hostile text appears only escaped.
    const shown = body.slice(0, body.indexOf('<!-- patchsmith:plan-json -->'))
    expect(shown).not.toMatch(/@octocat/)
    expect(shown).not.toMatch(/(?<!\\)<img/)
    expect(shown).not.toMatch(/Fixes #1/)
    expect(shown).not.toContain('https://evil')
    // The JSON holds none of the signs GitHub acts on, written as JSON escapes instead.
    const json = readPlanJson(body)!
    expect(json).not.toMatch(/[<>@#`]|:\/\//)
    expect(body).toContain(`/patchsmith approve ${held().plan_hash}`)
    expect(body).toContain('`tests/test_issue_7.py` (pytest)')
  })

  it('reads back the plan posted, to the same hash, also after an edit through GitHub (CRLF)', () => {
    const posted = held()
    const body = planComment(posted).replace(/\n/g, '\r\n')
    const read = JSON.parse(readPlanJson(body)!) as Pick<
      AwaitingApproval,
      'triage_result' | 'fix_plan'
    >
    expect(read).toEqual({ triage_result: posted.triage_result, fix_plan: posted.fix_plan })
    expect(planHash({ issue: ISSUE, ...read })).toBe(posted.plan_hash)
  })

  it('hashes the values, not their layout: key order and spaces do not count, any value does', () => {
    const { fix_plan, triage_result } = held('x')
    const reordered = JSON.parse(JSON.stringify({ ...fix_plan, branch_name: fix_plan.branch_name }))
    expect(planHash({ issue: ISSUE, triage_result, fix_plan: reordered })).toBe(
      planHash({ issue: ISSUE, triage_result, fix_plan })
    )
    expect(planHash({ issue: { ...ISSUE, body: 'It breaks!' }, triage_result, fix_plan })).not.toBe(
      planHash({ issue: ISSUE, triage_result, fix_plan })
    )
  })

  it('finds no plan in a comment without the plan marker', () => {
    expect(
      readPlanJson(
        '<!-- patchsmith:plan-json -->\n```json\n{}\n```\n<!-- /patchsmith:plan-json -->'
      )
    ).toBe(undefined)
  })
})

describe('approval request', () => {
  const LABEL = 'patchsmith-approved'
  const event = (payload: object) => {
    const path = join(mkdtempSync(join(tmpdir(), 'patchsmith-approval-')), 'event.json')
    writeFileSync(path, JSON.stringify(payload))
    return path
  }
  const comment = (body: string, extra: object = {}) => ({
    action: 'created',
    issue: ISSUE,
    comment: { body },
    sender: { login: 'maintainer' },
    ...extra
  })

  it('reads the command and hash at the start of a line, from the sender', () => {
    const path = event(comment('Looks right.\n/patchsmith approve ABCDEF0123456789abcdef01'))
    expect(approvalRequest('issue_comment', path, LABEL)).toMatchObject({
      hash: 'abcdef0123456789abcdef01',
      by: 'maintainer',
      issue: { number: 7 }
    })
  })

  it('is no approval on a pull request, in mid-line, or from another event', () => {
    expect(
      approvalRequest('issue_comment', event(comment('see /patchsmith approve x')), LABEL)
    ).toBe(undefined)
    const onPull = comment('/patchsmith approve x', { issue: { ...ISSUE, pull_request: {} } })
    expect(approvalRequest('issue_comment', event(onPull), LABEL)).toBe(undefined)
    expect(approvalRequest('issues', event(comment('/patchsmith approve x')), LABEL)).toBe(
      undefined
    )
  })

  it('reads the approval label added to an issue, with the time the event gives, any case', () => {
    const at = '2026-05-01T10:00:00Z'
    const labelled = (name: string, extra: object = {}) => ({
      action: 'labeled',
      issue: { ...ISSUE, updated_at: at },
      label: { name },
      sender: { login: 'maintainer' },
      ...extra
    })
    expect(approvalRequest('issues', event(labelled('Patchsmith-Approved')), LABEL)).toMatchObject({
      hash: '',
      by: 'maintainer',
      issue: { number: 7 },
      label: { name: 'Patchsmith-Approved', at }
    })
    // The label that asks for a plan, a label taken off, or on a pull request: no approval.
    expect(approvalRequest('issues', event(labelled('patchsmith')), LABEL)).toBe(undefined)
    const unlabelled = labelled(LABEL, { action: 'unlabeled' })
    expect(approvalRequest('issues', event(unlabelled), LABEL)).toBe(undefined)
    const onPull = labelled(LABEL, { issue: { ...ISSUE, pull_request: {} } })
    expect(approvalRequest('issues', event(onPull), LABEL)).toBe(undefined)
  })
})

describe('plan-approval setting', () => {
  it('is refused beside a task file, a coding task or a follow-up', () => {
    expect(() =>
      parseRunConfig({ taskFile: 'tasks.md', settings: ['plan-approval: required'] })
    ).toThrow(/plan-approval.*task-file/)
    expect(parseRunConfig({ settings: ['plan-approval: required'] }).planApproval).toBe('required')
  })
})
