import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src/contract/index.js'
import { withPatchsmithTrailer } from '../../src/git/commit-message.js'
import { followUpTrigger } from '../../src/modes/follow-up/index.js'
import { madeByPatchsmith, parseTrailers, roundOf } from '../../src/modes/follow-up/trailers.js'

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

const SHA = 'a'.repeat(40)

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

  it('takes a failed workflow run or check suite, with the run to read the log of and its commit', () => {
    const run = (conclusion: string) =>
      event({ workflow_run: { id: 55, conclusion, head_sha: SHA, pull_requests: [{ number: 4 }] } })
    expect(followUpTrigger('true', 'workflow_run', run('failure'))).toEqual({
      pullRequest: 4,
      failedRun: { runId: 55, headSha: SHA }
    })
    expect(refusal(() => followUpTrigger('true', 'workflow_run', run('success')))).toMatch(
      /concluded "success"/
    )
    const suite = event({
      check_suite: { id: 8, conclusion: 'failure', head_sha: SHA, pull_requests: [{ number: 5 }] }
    })
    expect(followUpTrigger('true', 'check_suite', suite)).toEqual({
      pullRequest: 5,
      failedRun: { checkSuiteId: 8, headSha: SHA }
    })
    // Without the commit it ran on, a failure could be an older commit's: it drives nothing.
    const shaless = event({
      workflow_run: { id: 55, conclusion: 'failure', pull_requests: [{ number: 4 }] }
    })
    expect(refusal(() => followUpTrigger('true', 'workflow_run', shaless))).toMatch(
      /names no commit/
    )
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

describe('the trailers of a commit message', () => {
  const round =
    'fix(src): address review on #12\n\nPatchsmith-Commit: validated\nPatchsmith-Follow-Up: 2'

  it('reads the round whatever trailers follow it (a sign-off, a co-author, a hook)', () => {
    expect(roundOf(round)).toBe(2)
    expect(roundOf(`${round}\nSigned-off-by: A <a@b.c>`)).toBe(2)
    expect(
      roundOf(`${round}\nCo-authored-by: B <b@c.d>\nSigned-off-by: A <a@b.c>\nChange-Id: I12\n\n`)
    ).toBe(2)
    expect(roundOf(`${round}\r\nSigned-off-by: A <a@b.c>\r\n`)).toBe(2)
  })

  it('reads only the last paragraph as trailers, never the subject or the body', () => {
    expect(roundOf('Patchsmith-Follow-Up: 1')).toBeUndefined()
    expect(roundOf('fix: x\n\nPatchsmith-Follow-Up: 1\n\nThe body goes on here.')).toBeUndefined()
    expect(roundOf('fix: x\n\nPatchsmith-Follow-Up: one')).toBeUndefined()
    // Prose with a colon among the trailers: git's rule, a quarter trailers and one it knows.
    expect(roundOf('fix: x\n\nPatchsmith-Follow-Up: 3\nsee the thread\nSigned-off-by: A')).toBe(3)
    expect(
      roundOf(
        'fix: x\n\nthe round\nwas long\nand hard\nPatchsmith-Follow-Up: 1\nand more\nand more'
      )
    ).toBeUndefined()
  })

  it('names the trailers with their continuation lines', () => {
    expect(
      parseTrailers('fix: x\n\nFixes #3\nLicense-Tag: MIT\n  and more\nSigned-off-by: A')
    ).toEqual([
      { key: 'License-Tag', value: 'MIT and more' },
      { key: 'Signed-off-by', value: 'A' }
    ])
  })

  it("knows Patchsmith's commits by their trailer, in the trailer block only", () => {
    expect(
      madeByPatchsmith('fix: x\n\nFixes #3\n\nSigned-off-by: A\nPatchsmith-Commit: validated')
    ).toBe(true)
    expect(madeByPatchsmith(round)).toBe(true)
    expect(madeByPatchsmith('fix: x\n\nFixes #3')).toBe(false)
    expect(madeByPatchsmith('fix: x\n\nPatchsmith-Commit: validated\n\nsaid nobody')).toBe(false)
  })
})

describe("Patchsmith's trailer on its commits", () => {
  it('joins a trailer block or starts one, and the follow-up reads it back', () => {
    expect(withPatchsmithTrailer('fix: x\n\nFixes #3\n')).toBe(
      'fix: x\n\nFixes #3\n\nPatchsmith-Commit: validated\n'
    )
    expect(
      withPatchsmithTrailer('feat: x\n\n[agent:T-1]\n\nLicense-Tag: MIT\nSigned-off-by: A')
    ).toBe(
      'feat: x\n\n[agent:T-1]\n\nLicense-Tag: MIT\nSigned-off-by: A\nPatchsmith-Commit: validated\n'
    )
    expect(withPatchsmithTrailer('fix: x')).toBe('fix: x\n\nPatchsmith-Commit: validated\n')
    for (const message of [
      'fix: x\n\nFixes #3',
      'fix: x\n\nPatchsmith-Follow-Up: 1\nSigned-off-by: A'
    ])
      expect(madeByPatchsmith(withPatchsmithTrailer(message))).toBe(true)
  })
})
