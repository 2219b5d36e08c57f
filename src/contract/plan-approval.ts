import { createHash } from 'node:crypto'
import { z } from 'zod'
import { lazySchema } from './lazy-schema.js'
import { fixPlanSchema, triageResultSchema, type CodeAgentInput } from './schemas.js'

/*
 * Plan approval (`plan-approval: required`): a run that posts its plan and ends awaiting a
 * writer's approval, and the hash that names the plan a writer approves.
 */

/** What a reproduction of the issue would be: the test file it writes, or why there is none. */
const plannedReproductionSchema = lazySchema(() =>
  z.union([
    z.object({ path: z.string(), framework: z.string(), command: z.string() }),
    z.object({ none: z.string() })
  ])
)
export type PlannedReproduction = z.infer<ReturnType<typeof plannedReproductionSchema>>

/** A run that ends awaiting approval: the plan as it will run, and how to approve it. */
export const awaitingApprovalSchema = lazySchema(() =>
  z.object({
    issue_number: z.number().int().positive(),
    /** The plan's hash (planHash): the approval names it; any change to the plan or the issue changes it. */
    plan_hash: z.string().regex(/^[0-9a-f]{24}$/),
    fix_plan: fixPlanSchema(),
    triage_result: triageResultSchema(),
    /** The validation commands that will run, in order (the pipeline's steps, then the plan's). */
    validation_commands: z.array(z.string()),
    reproduction: plannedReproductionSchema(),
    /** The reply that approves this plan, e.g. `/patchsmith approve 3f2a…`. */
    approve_command: z.string(),
    /** The label whose adding to the issue approves this plan (`approval-label`). */
    approve_label: z.string().optional(),
    /** The issue whose progress comment holds the plan, where a writer approves it. */
    posted_on: z.number().int().positive().optional(),
    /** Why the plan could not be posted for approval (no issue to comment on), and how to approve it. */
    not_posted: z.string().optional()
  })
)
export type AwaitingApproval = z.infer<ReturnType<typeof awaitingApprovalSchema>>

/** The part of a plan a writer reads and may edit: the plan and the triage it was made from. */
export const approvablePlanSchema = lazySchema(() =>
  z.strictObject({ triage_result: triageResultSchema(), fix_plan: fixPlanSchema() })
)

/** The length of a plan hash: 96 bits of SHA-256. */
export const PLAN_HASH_LENGTH = 24

/**
 * The hash an approval names: SHA-256 of the issue's number, title and body, the triage result
 * and the fix plan, as JSON with sorted keys (so whitespace or key order in an edited plan do
 * not count; any change of a value does, the issue's text included).
 */
export function planHash(
  input: Pick<CodeAgentInput, 'issue' | 'triage_result' | 'fix_plan'>
): string {
  const { number, title, body } = input.issue
  const text = canonicalJson({
    issue: { number, title, body },
    triage_result: input.triage_result,
    fix_plan: input.fix_plan
  })
  return createHash('sha256').update(text).digest('hex').slice(0, PLAN_HASH_LENGTH)
}

/** JSON with every object's keys sorted, so equal values give equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0
          )
        )
      : item
  )
}
