import { z } from 'zod'
import { lazySchema } from './lazy-schema.js'
import { awaitingApprovalSchema } from './plan-approval.js'
import { rollingBudgetSchema, runOutcomeSchema } from './run-outcome.js'
import { agentResponseSchema, commitSchema } from './schemas.js'

/** A green plan run's pull request, ready to open: the body ends with `Fixes #N`. */
const pullRequestTextSchema = lazySchema(() =>
  z.object({
    title: z.string(),
    /** Markdown: what changed and why, the root cause, the proof table, cost, the run, Fixes #N. */
    body: z.string()
  })
)

export const codeAgentOutputSchema = lazySchema(() =>
  agentResponseSchema(z.array(commitSchema())).extend({
    /** On a successful plan run (one plan or a task file) only; not on a follow-up round. */
    pull_request: pullRequestTextSchema().optional(),
    /**
     * `plan-approval: required` and no approval yet: the plan was posted and the run ended
     * waiting for a writer's approval. Not a failure: `success` is false, there is no `error`,
     * nothing was changed, and the step succeeds.
     */
    awaiting_approval: awaitingApprovalSchema().optional(),
    /** How the run ended; `budget-exhausted`: it did not start (see run-outcome.ts). */
    outcome: runOutcomeSchema().optional(),
    /** The repository's rolling budget (budget-per-day, budget-per-week lines) for this run. */
    rolling_budget: rollingBudgetSchema().optional()
  })
)
export type CodeAgentOutput = z.infer<ReturnType<typeof codeAgentOutputSchema>>

/** A run that ended holding its plan for approval (its own outcome, not a failure). */
export function awaitsApproval(response: Pick<CodeAgentOutput, 'awaiting_approval'>): boolean {
  return response.awaiting_approval !== undefined
}
