import { describe, expect, it } from 'vitest'
import type { AgentError } from '../../src/contract/index.js'
import { failureComment } from '../../src/report/index.js'

const failed: AgentError = {
  code: 'VALIDATION_FAILED',
  message: 'npm test still failed after 2 repairs',
  recoverable: false
}

describe('the failure comment says whether a rerun helps, as its advice does', () => {
  it('a run that kept its last attempt: yes, with resume: true, never "no"', () => {
    const body = failureComment({
      ...failed,
      details: { last_attempt: { diff: '--- a/x\n+++ b/x\n' } }
    })
    expect(body).toContain('| Can a rerun help? | yes, with `resume: true` in `settings`')
    expect(body).not.toContain('no, not as it is')
  })

  it('without one: no, not as it is (and maybe when the failure may be temporary)', () => {
    expect(failureComment(failed)).toContain('| Can a rerun help? | no, not as it is |')
    expect(failureComment({ ...failed, code: 'MODEL_ERROR', recoverable: true })).toContain(
      'maybe: the failure may be temporary'
    )
  })
})
