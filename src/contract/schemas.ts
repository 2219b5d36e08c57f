import { z } from 'zod'
import { lazySchema } from './lazy-schema.js'

// Each schema parses a handful of values per run: compiling fast paths with `new Function` costs
// more than it saves, and no code is generated from untrusted shapes.
z.config({ jitless: true })

/** The contract of seed 000 (Code Agent), the one source of the TypeScript types. */

export const ERROR_CODES = [
  'GIT_CONFLICT',
  'VALIDATION_FAILED',
  'PERMISSION_DENIED',
  'INVALID_DIFF',
  'BRANCH_EXISTS',
  'SECURITY_VIOLATION',
  'INVALID_INPUT',
  'MODEL_ERROR',
  'TIMEOUT',
  'TOKEN_BUDGET_EXCEEDED',
  // The run was stopped by a signal (a cancelled job) and rolled back.
  'CANCELLED',
  // GitHub's API failed (5xx, a rate limit, GraphQL errors, no answer): GitHub's side, not ours.
  'GITHUB_API_ERROR',
  // The machine failed the run: a full disk, a read-only or unwritable checkout.
  'ENVIRONMENT_ERROR',
  // A bug in Patchsmith, not a property of the input: the stack is in the log.
  'INTERNAL_ERROR'
] as const
const errorCodeSchema = lazySchema(() => z.enum(ERROR_CODES))
export type ErrorCode = z.infer<ReturnType<typeof errorCodeSchema>>

const labelSchema = lazySchema(() => z.union([z.string(), z.object({ name: z.string() }).loose()]))

/** Issues come from event payloads full of extra fields: unknown keys are dropped, not refused. */
export const issueSchema = lazySchema(() =>
  z.object({
    number: z.number().int().positive(),
    title: z.string().min(1).max(1_000),
    body: z
      .string()
      .max(262_144)
      .nullish()
      .transform((body) => body ?? ''),
    labels: z.array(labelSchema()).optional(),
    html_url: z.string().optional()
  })
)
export type Issue = z.infer<ReturnType<typeof issueSchema>>

export const triageResultSchema = lazySchema(() =>
  z
    .object({
      classification: z.string().max(100).optional(),
      risk: z.string().max(100).optional(),
      affected_files: z.array(z.string().max(4_096)).max(1_000).optional()
    })
    .loose()
)
export type TriageResult = z.infer<ReturnType<typeof triageResultSchema>>

export const operationSchema = lazySchema(() => z.enum(['MODIFY', 'CREATE', 'DELETE']))
export type Operation = z.infer<ReturnType<typeof operationSchema>>

const fileChangeSchema = lazySchema(() =>
  z.strictObject({
    path: z.string().min(1).max(4_096),
    operation: operationSchema(),
    line_range: z
      .tuple([z.number().int().min(1), z.number().int().min(1)])
      .refine(([start, end]) => start <= end, 'line_range start must not exceed its end')
      .optional(),
    description: z.string().max(10_000).optional()
  })
)
export type FileChange = z.infer<ReturnType<typeof fileChangeSchema>>

export const fixPlanSchema = lazySchema(() =>
  z.strictObject({
    branch_name: z.string().min(1).max(200),
    plan_steps: z.array(z.unknown()).max(1_000),
    file_changes: z
      .array(fileChangeSchema())
      .min(1)
      .max(50)
      .refine(
        (changes) => new Set(changes.map((c) => c.path)).size === changes.length,
        'each path may appear only once in file_changes'
      ),
    validation_commands: z.array(z.string().min(1).max(1_000)).max(50)
  })
)
export type FixPlan = z.infer<ReturnType<typeof fixPlanSchema>>

const styleConfigSchema = lazySchema(() =>
  z.strictObject({
    indent_style: z.enum(['space', 'tab']),
    indent_size: z.number().int().min(1).max(16),
    end_of_line: z.enum(['lf', 'crlf']),
    insert_final_newline: z.boolean()
  })
)
export type StyleConfig = z.infer<ReturnType<typeof styleConfigSchema>>

const repositorySnapshotSchema = lazySchema(() =>
  z.strictObject({
    branch: z.string().min(1),
    files: z.record(z.string(), z.string()),
    git_ref: z.string(),
    style_config: styleConfigSchema()
  })
)

export const codeAgentInputSchema = lazySchema(() =>
  z.strictObject({
    issue: issueSchema(),
    triage_result: triageResultSchema(),
    fix_plan: fixPlanSchema(),
    repository_snapshot: repositorySnapshotSchema().optional()
  })
)
export type CodeAgentInput = z.infer<ReturnType<typeof codeAgentInputSchema>>

const validationStepSchema = lazySchema(() =>
  z.enum(['format', 'lint', 'typecheck', 'test', 'command'])
)
export type ValidationStep = z.infer<ReturnType<typeof validationStepSchema>>

const validationResultSchema = lazySchema(() =>
  z.object({
    command: z.string(),
    exit_code: z.number().int(),
    stdout: z.string(),
    stderr: z.string(),
    duration_ms: z.number().int().min(0),
    /** Patchsmith's additions: the pipeline step, and how the result came about. */
    step: validationStepSchema().optional(),
    /** Failed, then passed when run again (`retry-flaky`). */
    flaky: z.boolean().optional(),
    /** Passed after the step's fix command ran. */
    auto_fixed: z.boolean().optional(),
    /** Fails on the untouched base too; kept only with `on-preexisting-failure: commit`. */
    preexisting: z.boolean().optional()
  })
)
export type ValidationResult = z.infer<ReturnType<typeof validationResultSchema>>

const commandOutcomeSchema = lazySchema(() => z.enum(['passed', 'failed', 'not-run']))

/** One validation command held against the base: the proof a change did what it says (issue 26). */
const commandProofSchema = lazySchema(() =>
  z.object({
    command: z.string(),
    /** On the untouched base; `not-run` when the command was not run there (a format step, a timeout). */
    base: commandOutcomeSchema(),
    after: commandOutcomeSchema(),
    /** The runner whose per-test output was compared (pytest, jest, go, …); absent: whole outputs. */
    runner: z.string().optional(),
    /** Tests that fail on the base and pass after the change. */
    fixed: z.array(z.string()),
    /** Tests that pass on the base and fail after the change. */
    broken: z.array(z.string()),
    /** Failures left after the change that fail the same way on the base and are not the issue's. */
    unrelated: z.array(z.string())
  })
)
export type CommandProof = z.infer<ReturnType<typeof commandProofSchema>>

/** How a commit proves it fixed the issue (issue 35): only the first two statuses verify it. */
const VERIFICATION_STATUSES = ['reproduced-and-fixed', 'fixed-failing-test', 'unverified'] as const

const verificationSchema = lazySchema(() =>
  z.object({
    status: z.enum(VERIFICATION_STATUSES),
    /** In plain words: what was shown, or why nothing was. */
    reason: z.string(),
    /** The tests that flipped, the reproduction's first. */
    tests: z.array(
      z.object({ id: z.string(), base: commandOutcomeSchema(), after: commandOutcomeSchema() })
    ),
    /** The reproduction test Patchsmith had written, when there is one. */
    reproduction: z
      .object({
        path: z.string(),
        command: z.string(),
        /** `reproduction: commit`: part of the commit; `evidence`: run, shown, not committed. */
        committed: z.boolean(),
        /** The test file as written (cut for very long ones). */
        content: z.string()
      })
      .optional()
  })
)
export type Verification = z.infer<ReturnType<typeof verificationSchema>>

export const COMMIT_SUBJECT = /^(fix|feat|docs|chore|refactor)\([a-z-]+\): .{10,100}$/

export const commitSchema = lazySchema(() =>
  z.object({
    issue_number: z.number().int().positive(),
    message: z.string().refine((m) => COMMIT_SUBJECT.test(m.split('\n')[0] ?? ''), {
      message: 'the first line must be a Conventional Commit subject'
    }),
    diff: z.string(),
    files_changed: z.array(z.string()),
    timestamp: z.string(),
    validation_results: z.array(validationResultSchema()),
    /** The 40-character commit SHA; empty only for a dry run, which commits nothing. */
    sha: z.string().regex(/^([0-9a-f]{40})?$/),
    branch: z.string(),
    patch_id: z.string(),
    /**
     * Seed Maverick's FixResult: true only when a test was shown failing on the base and passing
     * after (a reproduction, or a failing test the issue names) and nothing the change broke remains.
     */
    verification_passed: z.boolean().optional(),
    verification: verificationSchema().optional(),
    /** The root cause the triage or the plan gave (seed Maverick). */
    root_cause: z.string().optional(),
    /** Per validation command: on the base, after the change, the tests that flipped. */
    proof: z.array(commandProofSchema()).optional(),
    /** The commit the change sits on and was validated on (for a pushed branch, origin's base then). */
    base_sha: z.string().optional(),
    /** origin's base moved during the run: the base the change was first made on, before the move. */
    moved_from_base: z.string().optional()
  })
)
export type Commit = z.infer<ReturnType<typeof commitSchema>>

/**
 * The work a stopped run had paid for (`error.details.last_attempt`): the last diff that applied
 * on the base, and what validating it gave. Never committed; a rerun with `resume` starts its
 * repair loop from it instead of drafting again.
 */
export const lastAttemptSchema = lazySchema(() =>
  z.object({
    issue_number: z.number().int().positive(),
    branch: z.string(),
    /** The commit the diff applies to. */
    base_sha: z.string().regex(/^[0-9a-f]{40}$/),
    attempt: z.number().int().min(1),
    files: z.array(z.string()).min(1),
    diff: z.string().min(1),
    /** True when every validation command passed (a later step, such as the push, stopped the run). */
    validated: z.boolean(),
    validation_results: z.array(validationResultSchema())
  })
)
export type LastAttempt = z.infer<ReturnType<typeof lastAttemptSchema>>

const agentErrorSchema = lazySchema(() =>
  z.object({
    code: errorCodeSchema(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    recoverable: z.boolean()
  })
)
export type AgentError = z.infer<ReturnType<typeof agentErrorSchema>>

export function agentResponseSchema<T extends z.ZodType>(data: T) {
  return z.object({
    success: z.boolean(),
    data: data.optional(),
    error: agentErrorSchema().optional(),
    metrics: z.record(z.string(), z.unknown()).optional()
  })
}
