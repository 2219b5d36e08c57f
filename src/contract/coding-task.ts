import { z } from 'zod'
import { lazySchema } from './lazy-schema.js'

/** Seed Coding-Agent: a task id becomes the branch `agt/<id>`, so it must be a safe ref name. */
const TASK_ID = /^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.|lock$))*$/

/**
 * Seed Coding-Agent's CodingTask (its proto as JSON). Patchsmith adds `license_tag` (written
 * as a `License-Tag:` commit trailer) and `issue_number` (a `Fixes #N` line, comments on failure).
 */
export const codingTaskSchema = lazySchema(() =>
  z.object({
    id: z.string().min(1).max(100).regex(TASK_ID, 'letters, digits, ".", "_" and "-" only'),
    parent_plan_id: z.string().max(200).optional(),
    step_number: z.number().int().min(0).optional(),
    goal: z.string().trim().min(1).max(20_000),
    paths: z.array(z.string().min(1).max(4_096)).min(1).max(50),
    blob_ids: z.array(z.string().max(200)).max(1_000).optional(),
    depends_on: z.array(z.string().max(200)).max(1_000).optional(),
    skeleton_patch: z
      .union([z.string(), z.array(z.string())])
      .transform((patch) => (Array.isArray(patch) ? patch : [patch]))
      .pipe(z.array(z.string().max(200_000)).max(50))
      .optional(),
    complexity_label: z.string().max(100).optional(),
    estimated_tokens: z.number().int().min(0).optional(),
    base_commit_sha: z
      .string()
      .regex(/^[0-9a-f]{7,40}$/, 'a hexadecimal commit SHA')
      .optional(),
    license_tag: z
      .string()
      .regex(/^[A-Za-z0-9.+()-]+(?: [A-Za-z0-9.+()-]+)*$/, 'an SPDX-like tag on one line')
      .max(100)
      .optional(),
    issue_number: z.number().int().positive().optional()
  })
)
export type CodingTask = z.output<ReturnType<typeof codingTaskSchema>>

const COMMIT_STATUSES = ['SUCCESS', 'SOFT_FAIL', 'HARD_FAIL'] as const
const commitStatusSchema = lazySchema(() => z.enum(COMMIT_STATUSES))
export type CommitStatus = z.infer<ReturnType<typeof commitStatusSchema>>

/** Seed Coding-Agent's CommitResult: what the orchestrator reads back for one task. */
export const commitResultSchema = lazySchema(() =>
  z.object({
    task_id: z.string(),
    commit_sha: z.string().regex(/^([0-9a-f]{40})?$/),
    branch_name: z.string(),
    status: commitStatusSchema(),
    notes: z.array(z.string()),
    retries: z.number().int().min(0),
    llm_tokens_used: z.number().min(0)
  })
)
export type CommitResult = z.infer<ReturnType<typeof commitResultSchema>>
