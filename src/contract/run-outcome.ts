import { z } from 'zod'
import { lazySchema } from './lazy-schema.js'

/**
 * How a run ended, beside `success`: `committed`; `validated` (a dry run); `awaiting-approval`
 * (plan-approval: required posted the plan, nothing changed); `budget-exhausted` (the
 * repository's rolling budget had no room for it: `rolling_budget.refused.frees_at` says when one
 * can start); `failed`. Only `failed` is a failure: the others have no error, roll nothing back
 * and post no failure comment or label.
 */
const RUN_OUTCOMES = [
  'committed',
  'validated',
  'awaiting-approval',
  'budget-exhausted',
  'failed'
] as const
export const runOutcomeSchema = lazySchema(() => z.enum(RUN_OUTCOMES))
type RunOutcome = (typeof RUN_OUTCOMES)[number]

/** One ceiling of the rolling budget as the ledger stood (budget-per-day, budget-per-week). */
const budgetWindowSchema = lazySchema(() =>
  z.object({
    window: z.enum(['day', 'week']),
    unit: z.enum(['usd', 'tokens']),
    /** The ceiling (USD or tokens) over the last 24 hours or 7 days. */
    ceiling: z.number(),
    /** Spent in the window: settled runs, and the caps of runs still going. */
    spent: z.number(),
    /** Of `spent`: the caps of runs that have not settled. */
    reserved: z.number()
  })
)

/** The repository's rolling budget, when the run has budget lines: the ledger on origin. */
export const rollingBudgetSchema = lazySchema(() =>
  z.object({
    /** The ref on origin holding the ledger. */
    ref: z.string(),
    /** Each ceiling after this run settled (or when it was refused). */
    windows: z.array(budgetWindowSchema()),
    /** What this run reserved (its cap) and, once settled, spent. */
    run: z.object({
      reserved_usd: z.number(),
      reserved_tokens: z.number(),
      spent_usd: z.number().optional(),
      spent_tokens: z.number().optional()
    }),
    /** Set when the run did not start (outcome `budget-exhausted`). */
    refused: z
      .object({
        window: z.enum(['day', 'week']),
        unit: z.enum(['usd', 'tokens']),
        message: z.string(),
        /** When the ledger has room for this run's cap again (ISO 8601). */
        frees_at: z.string()
      })
      .optional(),
    /** Set when the ledger could not be settled at the end (the reservation stays). */
    settle_problem: z.string().optional()
  })
)
export type RollingBudget = z.infer<ReturnType<typeof rollingBudgetSchema>>

/** The outcome a response shows (one it set itself, or what its fields say). */
export function outcomeOf(response: {
  success: boolean
  outcome?: RunOutcome
  awaiting_approval?: unknown
  data?: ReadonlyArray<{ sha?: string }>
}): RunOutcome {
  if (response.outcome) return response.outcome
  if (response.awaiting_approval) return 'awaiting-approval'
  if (!response.success) return 'failed'
  return (response.data ?? []).some((commit) => commit.sha) ? 'committed' : 'validated'
}
