import { expect, it } from 'vitest'
import { costLine } from '../../src/report/outcome-text.js'

const line = (tokens: Record<string, number>, usd?: number) =>
  costLine({ tokens, ...(usd === undefined ? {} : { cost: { usd } }) } as never)

it('groups token counts by thousands as en-US does, for every size of whole number', () => {
  const counts = [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 123_456_789, 2 ** 53 - 1]
  for (const total of counts)
    expect(line({ total, prompt: total, completion: 0, calls: 1 })).toBe(
      `${total.toLocaleString('en-US')} tokens (${total.toLocaleString('en-US')} in, 0 out) · 1 model call`
    )
})

it('writes the cost, the split and the calls around the counts', () => {
  expect(line({ total: 1_234_567, prompt: 1_000_000, completion: 234_567, calls: 2 }, 0.5)).toMatch(
    /^\$?0\.5 · 1,234,567 tokens \(1,000,000 in, 234,567 out\) · 2 model calls$/
  )
})

it('writes a count that is no whole number as en-US does (never from a run, but not mangled)', () => {
  expect(line({ total: 1234.5678, prompt: 0, completion: 0, calls: 0 })).toBe(
    `${(1234.5678).toLocaleString('en-US')} tokens (0 in, 0 out) · 0 model calls`
  )
})
