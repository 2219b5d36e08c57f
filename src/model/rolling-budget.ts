import { z } from 'zod'
import { formatUsd, type ModelPricing } from './pricing.js'

/*
 * The rolling budgets of a repository (budget-per-day, budget-per-week): what the ledger holds,
 * how much of a window it has spent, and whether one more run fits. Pure: the ledger is read
 * and written by the engine (engine/budget-ledger.ts) through a ref on origin.
 */

type BudgetUnit = 'usd' | 'tokens'
export type BudgetWindow = 'day' | 'week'

export interface Ceiling {
  window: BudgetWindow
  unit: BudgetUnit
  amount: number
}

const WINDOW_MS: Record<BudgetWindow, number> = {
  day: 24 * 3_600_000,
  week: 7 * 24 * 3_600_000
}

/** One run in the ledger: its cap while it runs (`open`), what it spent once settled. */
export interface LedgerEntry {
  id: string
  /** The workflow run (`<run id>.<attempt>`) or `local` for the command line. */
  run: string
  /** When the run reserved its cap (ISO): the entry leaves a window that long after. */
  time: string
  usd: number
  tokens: number
  open: boolean
}

// A ledger anyone with push access can write is read like any untrusted input: bounded.
const MAX_ENTRIES = 20_000

export const ledgerSchema = z.strictObject({
  version: z.literal(1),
  entries: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(100),
        run: z.string().max(200),
        time: z.iso.datetime(),
        usd: z.number().min(0).max(1e9),
        tokens: z.number().int().min(0).max(1e12),
        open: z.boolean()
      })
    )
    .max(MAX_ENTRIES)
})
export type Ledger = z.infer<typeof ledgerSchema>

/**
 * `20`, `$20`, `20 usd`, `2000000 tokens` (a `_` or `,` may group digits): one ceiling of a
 * window. Throws a message for the setting's error.
 */
export function parseCeiling(window: BudgetWindow, text: string): Ceiling {
  const match = /^\s*(\$)?\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*(usd|tokens)?\s*$/i.exec(text)
  const unit = match?.[3]?.toLowerCase() as BudgetUnit | undefined
  const amount = Number(match?.[2]?.replace(/[_,]/g, ''))
  if (!match || (match[1] && unit === 'tokens') || !Number.isFinite(amount) || amount <= 0)
    throw new Error(
      `expected an amount and a unit, "20 usd" (or "$20") or "2000000 tokens", got "${text}"`
    )
  if (unit === 'tokens' && !Number.isInteger(amount))
    throw new Error(`a token budget is a whole number, got "${text}"`)
  return { window, unit: unit ?? 'usd', amount }
}

/** What one run may spend at most, from max-cost and max-total-tokens: what it reserves. */
export interface RunCap {
  usd: number
  tokens: number
}

/**
 * A run's cap: max-total-tokens, and max-cost (or, without one, max-total-tokens at the dearest
 * of the prices). Throws a message when a ceiling has no cap of its unit to reserve.
 */
export function runCap(
  ceilings: readonly Ceiling[],
  limits: { maxTotalTokens: number; maxCost: number; pricing?: ModelPricing }
): RunCap {
  const { maxTotalTokens, maxCost, pricing } = limits
  const dearest = pricing ? Math.max(pricing.input, pricing.cachedInput, pricing.output) : 0
  const usd = maxCost > 0 ? maxCost : (maxTotalTokens * dearest) / 1e6
  for (const ceiling of ceilings) {
    const name = `budget-per-${ceiling.window}`
    if (ceiling.unit === 'usd' && !pricing)
      throw new Error(`${name} in USD needs model-pricing to price the calls`)
    if (ceiling.unit === 'usd' && usd <= 0)
      throw new Error(`${name} in USD needs max-cost (or max-total-tokens) to reserve per run`)
    if (ceiling.unit === 'tokens' && maxTotalTokens <= 0)
      throw new Error(`${name} in tokens needs max-total-tokens to reserve per run`)
    const cap = ceiling.unit === 'usd' ? usd : maxTotalTokens
    if (cap > ceiling.amount)
      throw new Error(
        `one run may spend ${show(ceiling.unit, cap)} (its cap), more than ${name} (${show(ceiling.unit, ceiling.amount)}): no run could ever start`
      )
  }
  return { usd: Number(formatUsd(usd)), tokens: maxTotalTokens }
}

/** Spent in one ceiling's window at `now`: settled runs and the caps of open ones. */
function spentIn(entries: readonly LedgerEntry[], ceiling: Ceiling, now: number): number {
  const since = now - WINDOW_MS[ceiling.window]
  const inWindow = entries.filter((entry) => Date.parse(entry.time) > since)
  return sum(inWindow.map((entry) => entry[ceiling.unit]))
}

interface WindowState extends Ceiling {
  spent: number
  /** Of `spent`: the caps of runs that have not settled yet. */
  reserved: number
}

export function windowStates(
  entries: readonly LedgerEntry[],
  ceilings: readonly Ceiling[],
  now: number
): WindowState[] {
  return ceilings.map((ceiling) => ({
    ...ceiling,
    spent: round(ceiling.unit, spentIn(entries, ceiling, now)),
    reserved: round(
      ceiling.unit,
      spentIn(
        entries.filter((entry) => entry.open),
        ceiling,
        now
      )
    )
  }))
}

/** Why a run may not start: the first ceiling its cap would pass, and when that one frees up. */
interface BudgetRefusal {
  ceiling: WindowState
  /** The run's cap in the ceiling's unit. */
  needed: number
  /** When enough of the window has aged out for the cap to fit (ISO). */
  freesAt: string
  message: string
}

/**
 * Whether a run with `cap` fits every ceiling at `now`; the refusal names the ceiling and the
 * time by which every ceiling has room for it (entries leave a window as they age).
 */
export function admit(
  entries: readonly LedgerEntry[],
  ceilings: readonly Ceiling[],
  cap: RunCap,
  now: number
): BudgetRefusal | undefined {
  const states = windowStates(entries, ceilings, now)
  const full = states.find((state) => state.spent + cap[state.unit] > state.amount + EPSILON)
  if (!full) return undefined
  const freesAt = Math.max(...ceilings.map((ceiling) => roomAt(entries, ceiling, cap, now)))
  const when = new Date(freesAt).toISOString()
  const needed = cap[full.unit]
  const message =
    `The ${full.window === 'day' ? 'daily' : 'weekly'} budget of this repository is spent: ` +
    `${show(full.unit, full.spent)} of ${show(full.unit, full.amount)} in the last ` +
    `${full.window === 'day' ? '24 hours' : '7 days'}` +
    (full.reserved > 0 ? ` (${show(full.unit, full.reserved)} reserved by runs still going)` : '') +
    `, and this run may spend up to ${show(full.unit, needed)}. It did not start; ` +
    `budget frees up at ${when}. Nothing was changed.`
  return { ceiling: full, needed, freesAt: when, message }
}

/** The first time, from `now` on, at which the ceiling has room for the cap. */
function roomAt(
  entries: readonly LedgerEntry[],
  ceiling: Ceiling,
  cap: RunCap,
  now: number
): number {
  const span = WINDOW_MS[ceiling.window]
  const inWindow = entries
    .filter((entry) => Date.parse(entry.time) > now - span)
    .sort((a, b) => Date.parse(a.time) - Date.parse(b.time))
  let spent = sum(inWindow.map((entry) => entry[ceiling.unit]))
  let at = now
  for (const entry of inWindow) {
    if (spent + cap[ceiling.unit] <= ceiling.amount + EPSILON) return at
    spent -= entry[ceiling.unit]
    at = Date.parse(entry.time) + span
  }
  return at
}

/** Entries older than the longest window are dropped when the ledger is written. */
export function pruned(entries: readonly LedgerEntry[], now: number): LedgerEntry[] {
  return entries.filter((entry) => Date.parse(entry.time) > now - WINDOW_MS.week)
}

function show(unit: BudgetUnit, amount: number): string {
  return unit === 'usd' ? `$${formatUsd(amount)}` : `${Math.round(amount)} tokens`
}

// USD figures are summed from 5-decimal amounts: a sum may miss by a float's last bits.
const EPSILON = 1e-9
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0)
const round = (unit: BudgetUnit, value: number) =>
  unit === 'usd' ? Number(formatUsd(value)) : Math.round(value)
