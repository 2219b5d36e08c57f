import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src/contract/index.js'
import { followUpTrigger } from '../../src/adapters/follow-up/index.js'

const dir = mkdtempSync(join(tmpdir(), 'patchsmith-trigger-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const event = (payload: object) => {
  const path = join(dir, `event-${n++}.json`)
  writeFileSync(path, JSON.stringify(payload))
  return path
}
const refusal = (action: () => unknown) => {
  try {
    action()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError)
    return (error as InvalidInputError).message
  }
  throw new Error('expected INVALID_INPUT')
}

describe('followUpTrigger', () => {
  it('takes a pull request number as it is', () => {
    expect(followUpTrigger('12', undefined, undefined)).toEqual({ pullRequest: 12 })
    expect(followUpTrigger('#7', 'push', undefined)).toEqual({ pullRequest: 7 })
    expect(refusal(() => followUpTrigger('soon', undefined, undefined))).toMatch(
      /expected a pull request number/
    )
  })

  it('answers a review only when it requests changes', () => {
    const review = (state: string) => event({ review: { state }, pull_request: { number: 3 } })
    expect(followUpTrigger('true', 'pull_request_review', review('changes_requested'))).toEqual({
      pullRequest: 3
    })
    expect(
      refusal(() => followUpTrigger('true', 'pull_request_review', review('approved')))
    ).toMatch(/"approved", not changes requested/)
  })

  it('answers a comment on a pull request only when a line starts with /patchsmith', () => {
    const comment = (body: string, pr = true) =>
      event({ comment: { body }, issue: { number: 9, ...(pr ? { pull_request: {} } : {}) } })
    expect(
      followUpTrigger('true', 'issue_comment', comment('Thanks!\n/patchsmith fix the review'))
    ).toEqual({
      pullRequest: 9
    })
    expect(
      refusal(() => followUpTrigger('true', 'issue_comment', comment('please /patchsmith')))
    ).toMatch(/\/patchsmith/)
    expect(
      refusal(() => followUpTrigger('true', 'issue_comment', comment('/patchsmith', false)))
    ).toMatch(/not on a pull request/)
  })

  it('takes a failed workflow run or check suite, with the run to read the log of', () => {
    const run = (conclusion: string) =>
      event({ workflow_run: { id: 55, conclusion, pull_requests: [{ number: 4 }] } })
    expect(followUpTrigger('true', 'workflow_run', run('failure'))).toEqual({
      pullRequest: 4,
      failedRun: { runId: 55 }
    })
    expect(refusal(() => followUpTrigger('true', 'workflow_run', run('success')))).toMatch(
      /concluded "success"/
    )
    const suite = event({
      check_suite: { id: 8, conclusion: 'failure', pull_requests: [{ number: 5 }] }
    })
    expect(followUpTrigger('true', 'check_suite', suite)).toEqual({
      pullRequest: 5,
      failedRun: { checkSuiteId: 8 }
    })
    const orphan = event({ check_suite: { id: 8, conclusion: 'failure', pull_requests: [] } })
    expect(refusal(() => followUpTrigger('true', 'check_suite', orphan))).toMatch(
      /on no pull request/
    )
  })

  it('refuses an event that names no pull request', () => {
    expect(
      refusal(() => followUpTrigger('true', 'issues', event({ issue: { number: 1 } })))
    ).toMatch(/set follow-up to its number/)
  })
})
