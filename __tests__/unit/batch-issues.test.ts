/** The `issues` setting of a batch: numbers in order, refusals, and what it cannot be combined with. */
import { describe, expect, it } from 'vitest'
import { parseRunConfig } from '../../src/config.js'
import { batchIssues } from '../../src/modes/batch/issue-list.js'

describe('issues setting', () => {
  it('keeps the order given, drops repeats, takes #N', async () => {
    expect(await batchIssues('18, #12 15 12', {})).toEqual([18, 12, 15])
  })

  it('refuses what is not an issue number, and a label query without a token', async () => {
    await expect(batchIssues('12, x', {})).rejects.toThrow(/"x" is not an issue number/)
    await expect(batchIssues('label:batch', {})).rejects.toThrow(/needs github-token/)
  })

  it('is refused beside a fix plan', () => {
    expect(() => parseRunConfig({ fixPlan: 'plan.json', settings: ['issues: 1, 2'] })).toThrow(
      /issues.*leave fix-plan unset/
    )
    expect(parseRunConfig({ settings: ['issues: 1, 2'] }).issues).toBe('1, 2')
  })
})
