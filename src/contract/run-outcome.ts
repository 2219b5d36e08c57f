import { z } from 'zod'
import { lazySchema } from './lazy-schema.js'

/**
 * How a run ended, beside `success`: `budget-exhausted` is a run that did not start because the
 * repository's rolling budget had no room for it. It is not a failure (no error, nothing rolled
 * back, no failure comment or label) and a rerun right away would end the same way:
 * `rolling_budget.refused.frees_at` says when one can start.
 */
export const RUN_OUTCOMES = ['succeeded', 'failed', 'budget-exhausted'] as const
export const runOutcomeSchema = lazySchema(() => z.enum(RUN_OUTCOMES))
export type RunOutcome = (typeof RUN_OUTCOMES)[number]

/** One ceiling of the rolling budget as the ledger stood (budget-per-day, budget-per-week). */
export const budgetWindowSchema = lazySchema(() =>
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
