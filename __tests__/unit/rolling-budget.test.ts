/**
 * The rolling budget's arithmetic (model/rolling-budget.ts) and its settings: what a window has
 * spent, whether a run's cap fits, when budget frees up, and the lines that cannot work.
 */
import { describe, expect, it } from 'vitest'
import { parseRunConfig } from '../../src/config.js'
import {
  admit,
  parseCeiling,
  pruned,
  runCap,
  type LedgerEntry
} from '../../src/model/rolling-budget.js'

const NOW = Date.parse('2026-03-10T12:00:00.000Z')
const HOUR = 3_600_000
const at = (hoursAgo: number) => new Date(NOW - hoursAgo * HOUR).toISOString()
const entry = (hoursAgo: number, usd: number, tokens = 0, open = false): LedgerEntry => ({
  id: `e${hoursAgo}`,
  run: 'local',
  time: at(hoursAgo),
  usd,
  tokens,
  open
})

describe('parseCeiling', () => {
  it('reads USD and token amounts', () => {
    expect(parseCeiling('day', '20')).toEqual({ window: 'day', unit: 'usd', amount: 20 })
    expect(parseCeiling('day', '$2.50')).toEqual({ window: 'day', unit: 'usd', amount: 2.5 })
    expect(parseCeiling('week', '7.5 USD')).toEqual({ window: 'week', unit: 'usd', amount: 7.5 })
    expect(parseCeiling('week', '2_000_000 tokens')).toEqual({
      window: 'week',
      unit: 'tokens',
      amount: 2_000_000
    })
  })

  it.each(['', '0', '-5 usd', '20 eur', '$20 tokens', '1.5 tokens', 'lots'])(
    'refuses %j',
    (text) => {
      expect(() => parseCeiling('day', text)).toThrow(/expected an amount|whole number/)
    }
  )
})

describe('admit', () => {
  const ceiling = parseCeiling('day', '1 usd')
  const cap = { usd: 0.4, tokens: 100_000 }

  it('lets a run start while spent plus its cap fits, counting open runs at their cap', () => {
    expect(admit([entry(2, 0.3), entry(1, 0.3)], [ceiling], cap, NOW)).toBeUndefined()
    expect(admit([entry(2, 0.3), entry(1, 0.4, 0, true)], [ceiling], cap, NOW)).toMatchObject({
      needed: 0.4,
      ceiling: { window: 'day', unit: 'usd', spent: 0.7, reserved: 0.4 }
    })
  })

  it('forgets what left the window', () => {
    expect(admit([entry(25, 0.9), entry(1, 0.5)], [ceiling], cap, NOW)).toBeUndefined()
  })

  it('says when enough has aged out for the cap to fit: the oldest entries first', () => {
    const entries = [entry(1, 0.3), entry(5, 0.3), entry(3, 0.3)]
    // 0.9 + 0.4 > 1; without the 5-hour-old entry 0.6 + 0.4 fits: it leaves in 19 hours.
    expect(admit(entries, [ceiling], cap, NOW)?.freesAt).toBe(at(5 - 24))
    const full = [entry(6, 0.6), entry(5, 0.3), entry(3, 0.3)]
    // 1.2: the 6-hour-old one leaves, 0.6 + 0.4 fits.
    expect(admit(full, [ceiling], cap, NOW)?.freesAt).toBe(at(6 - 24))
  })

  it('waits for the later of two windows, and names the first that is full', () => {
    const week = parseCeiling('week', '300000 tokens')
    const entries = [entry(100, 0, 250_000), entry(2, 0.7, 10_000)]
    const refusal = admit(entries, [ceiling, week], cap, NOW)
    expect(refusal?.ceiling.window).toBe('day')
    // The day frees in 22 hours; the week (260 000 tokens, a cap of 100 000) only when the
    // 100-hour-old entry leaves it, in 68.
    expect(refusal?.freesAt).toBe(at(100 - 168))
    expect(refusal?.message).toBe(
      'The daily budget of this repository is spent: $0.7 of $1 in the last 24 hours, and this ' +
        `run may spend up to $0.4. It did not start; budget frees up at ${at(100 - 168)}. Nothing was changed.`
    )
  })

  it('keeps only the last 7 days when the ledger is written', () => {
    expect(pruned([entry(169, 1), entry(167, 1)], NOW).map((e) => e.time)).toEqual([at(167)])
  })
})

describe('runCap and the budget settings', () => {
  const pricing = { input: 2, cachedInput: 0.5, output: 8 }

  it('reserves max-cost, or max-total-tokens at the dearest price', () => {
    const usd = [parseCeiling('day', '10')]
    expect(runCap(usd, { maxTotalTokens: 200_000, maxCost: 0.5, pricing })).toEqual({
      usd: 0.5,
      tokens: 200_000
    })
    expect(runCap(usd, { maxTotalTokens: 200_000, maxCost: 0, pricing })).toEqual({
      usd: 1.6,
      tokens: 200_000
    })
  })

  const config = (settings: string[], inputs: { maxTotalTokens?: number } = {}) =>
    parseRunConfig({ settings, ...inputs })

  it('refuses lines that cannot work, naming the setting', () => {
    expect(() => config(['budget-per-day: 5 usd'])).toThrow(
      /Setting "budget-per-day": budget-per-day in USD needs model-pricing/
    )
    expect(() => config(['budget-per-week: 100000 tokens'])).toThrow(
      /Setting "budget-per-week": one run may spend 200000 tokens \(its cap\), more than budget-per-week \(100000 tokens\): no run could ever start/
    )
    expect(() => config(['budget-per-week: 100000 tokens'], { maxTotalTokens: 0 })).toThrow(
      /needs max-total-tokens to reserve per run/
    )
    expect(() => config(['budget-per-day: 5 eur'])).toThrow(
      /Setting "budget-per-day": expected an amount and a unit/
    )
  })

  it('takes lines that fit', () => {
    const parsed = config(['model-pricing: 2 0.5 8', 'budget-per-day: $5'])
    expect(parsed.budgetPerDay).toBe('$5')
    expect(config(['budget-per-week: 1000000 tokens']).budgetPerWeek).toBe('1000000 tokens')
  })
})
