import { z } from 'zod'

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
export const ErrorCodeSchema = z.enum(ERROR_CODES)
export type ErrorCode = z.infer<typeof ErrorCodeSchema>

const Label = z.union([z.string(), z.object({ name: z.string() }).loose()])

/** Issues come from event payloads full of extra fields: unknown keys are dropped, not refused. */
export const IssueSchema = z.object({
  number: z.number().int().positive(),
  title: z.string().min(1).max(1_000),
  body: z
    .string()
    .max(262_144)
    .nullish()
    .transform((body) => body ?? ''),
  labels: z.array(Label).optional(),
  html_url: z.string().optional()
})
export type Issue = z.infer<typeof IssueSchema>

export const TriageResultSchema = z
  .object({
    classification: z.string().max(100).optional(),
    risk: z.string().max(100).optional(),
    affected_files: z.array(z.string().max(4_096)).max(1_000).optional()
  })
  .loose()
export type TriageResult = z.infer<typeof TriageResultSchema>

export const OperationSchema = z.enum(['MODIFY', 'CREATE', 'DELETE'])
export type Operation = z.infer<typeof OperationSchema>

export const FileChangeSchema = z.strictObject({
  path: z.string().min(1).max(4_096),
  operation: OperationSchema,
  line_range: z
    .tuple([z.number().int().min(1), z.number().int().min(1)])
    .refine(([start, end]) => start <= end, 'line_range start must not exceed its end')
    .optional(),
  description: z.string().max(10_000).optional()
})
export type FileChange = z.infer<typeof FileChangeSchema>

export const FixPlanSchema = z.strictObject({
  branch_name: z.string().min(1).max(200),
  plan_steps: z.array(z.unknown()).max(1_000),
  file_changes: z
    .array(FileChangeSchema)
    .min(1)
    .max(50)
    .refine(
      (changes) => new Set(changes.map((c) => c.path)).size === changes.length,
      'each path may appear only once in file_changes'
    ),
  validation_commands: z.array(z.string().min(1).max(1_000)).max(50)
})
export type FixPlan = z.infer<typeof FixPlanSchema>

export const StyleConfigSchema = z.strictObject({
  indent_style: z.enum(['space', 'tab']),
  indent_size: z.number().int().min(1).max(16),
  end_of_line: z.enum(['lf', 'crlf']),
  insert_final_newline: z.boolean()
})
export type StyleConfig = z.infer<typeof StyleConfigSchema>

export const RepositorySnapshotSchema = z.strictObject({
  branch: z.string().min(1),
  files: z.record(z.string(), z.string()),
  git_ref: z.string(),
  style_config: StyleConfigSchema
})
export type RepositorySnapshot = z.infer<typeof RepositorySnapshotSchema>

export const CodeAgentInputSchema = z.strictObject({
  issue: IssueSchema,
  triage_result: TriageResultSchema,
  fix_plan: FixPlanSchema,
  repository_snapshot: RepositorySnapshotSchema.optional()
})
export type CodeAgentInput = z.infer<typeof CodeAgentInputSchema>

export const ValidationStepSchema = z.enum(['format', 'lint', 'typecheck', 'test', 'command'])
export type ValidationStep = z.infer<typeof ValidationStepSchema>

export const ValidationResultSchema = z.object({
  command: z.string(),
  exit_code: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  duration_ms: z.number().int().min(0),
  /** Patchsmith's additions: the pipeline step, and how the result came about. */
  step: ValidationStepSchema.optional(),
  /** Failed, then passed when run again (`retry-flaky`). */
  flaky: z.boolean().optional(),
  /** Passed after the step's fix command ran. */
  auto_fixed: z.boolean().optional(),
  /** Fails on the untouched base too; kept only with `on-preexisting-failure: commit`. */
  preexisting: z.boolean().optional()
})
export type ValidationResult = z.infer<typeof ValidationResultSchema>

export const CommandOutcomeSchema = z.enum(['passed', 'failed', 'not-run'])

/** One validation command held against the base: the proof a change did what it says (issue 26). */
export const CommandProofSchema = z.object({
  command: z.string(),
  /** On the untouched base; `not-run` when the command was not run there (a format step, a timeout). */
  base: CommandOutcomeSchema,
  after: CommandOutcomeSchema,
  /** The runner whose per-test output was compared (pytest, jest, go, …); absent: whole outputs. */
  runner: z.string().optional(),
  /** Tests that fail on the base and pass after the change. */
  fixed: z.array(z.string()),
  /** Tests that pass on the base and fail after the change. */
  broken: z.array(z.string()),
  /** Failures left after the change that fail the same way on the base and are not the issue's. */
  unrelated: z.array(z.string())
})
export type CommandProof = z.infer<typeof CommandProofSchema>

export const COMMIT_SUBJECT = /^(fix|feat|docs|chore|refactor)\([a-z-]+\): .{10,100}$/

export const CommitSchema = z.object({
  issue_number: z.number().int().positive(),
  message: z.string().refine((m) => COMMIT_SUBJECT.test(m.split('\n')[0] ?? ''), {
    message: 'the first line must be a Conventional Commit subject'
  }),
  diff: z.string(),
  files_changed: z.array(z.string()),
  timestamp: z.string(),
  validation_results: z.array(ValidationResultSchema),
  /** The 40-character commit SHA; empty only for a dry run, which commits nothing. */
  sha: z.string().regex(/^([0-9a-f]{40})?$/),
  branch: z.string(),
  patch_id: z.string(),
  /** Seed Maverick's FixResult: every validation command passes, or fails only as on the base and unrelated. */
  verification_passed: z.boolean().optional(),
  /** The root cause the triage or the plan gave (seed Maverick). */
  root_cause: z.string().optional(),
  /** Per validation command: on the base, after the change, the tests that flipped. */
  proof: z.array(CommandProofSchema).optional(),
  /** The commit the change sits on and was validated on (for a pushed branch, origin's base then). */
  base_sha: z.string().optional(),
  /** origin's base moved during the run: the base the change was first made on, before the move. */
  moved_from_base: z.string().optional()
})
export type Commit = z.infer<typeof CommitSchema>

/**
 * The work a stopped run had paid for (`error.details.last_attempt`): the last diff that applied
 * on the base, and what validating it gave. Never committed; a rerun with `resume` starts its
 * repair loop from it instead of drafting again.
 */
export const LastAttemptSchema = z.object({
  issue_number: z.number().int().positive(),
  branch: z.string(),
  /** The commit the diff applies to. */
  base_sha: z.string().regex(/^[0-9a-f]{40}$/),
  attempt: z.number().int().min(1),
  files: z.array(z.string()).min(1),
  diff: z.string().min(1),
  /** True when every validation command passed (a later step, such as the push, stopped the run). */
  validated: z.boolean(),
  validation_results: z.array(ValidationResultSchema)
})
export type LastAttempt = z.infer<typeof LastAttemptSchema>

export const AgentErrorSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  recoverable: z.boolean()
})
export type AgentError = z.infer<typeof AgentErrorSchema>

export function agentResponseSchema<T extends z.ZodType>(data: T) {
  return z.object({
    success: z.boolean(),
    data: data.optional(),
    error: AgentErrorSchema.optional(),
    metrics: z.record(z.string(), z.unknown()).optional()
  })
}

/** A green plan run's pull request, ready to open: the body ends with `Fixes #N`. */
export const PullRequestTextSchema = z.object({
  title: z.string(),
  /** Markdown: what changed and why, the root cause, the proof table, cost, the run, Fixes #N. */
  body: z.string()
})
export type PullRequestText = z.infer<typeof PullRequestTextSchema>

export const CodeAgentOutputSchema = agentResponseSchema(z.array(CommitSchema)).extend({
  /** On a successful plan run (one plan or a task file) only; not on a follow-up round. */
  pull_request: PullRequestTextSchema.optional()
})
export type CodeAgentOutput = z.infer<typeof CodeAgentOutputSchema>
export interface AgentResponse<T> {
  success: boolean
  data?: T
  error?: AgentError
  metrics?: Record<string, unknown>
}

/** Seed Coding-Agent: a task id becomes the branch `agt/<id>`, so it must be a safe ref name. */
const TASK_ID = /^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.|lock$))*$/

/**
 * Seed Coding-Agent's CodingTask (its proto as JSON). Patchsmith adds `license_tag` (written
 * as a `License-Tag:` commit trailer) and `issue_number` (a `Fixes #N` line, comments on failure).
 */
export const CodingTaskSchema = z.object({
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
export type CodingTask = z.output<typeof CodingTaskSchema>

export const COMMIT_STATUSES = ['SUCCESS', 'SOFT_FAIL', 'HARD_FAIL'] as const
export const CommitStatusSchema = z.enum(COMMIT_STATUSES)
export type CommitStatus = z.infer<typeof CommitStatusSchema>

/** Seed Coding-Agent's CommitResult: what the orchestrator reads back for one task. */
export const CommitResultSchema = z.object({
  task_id: z.string(),
  commit_sha: z.string().regex(/^([0-9a-f]{40})?$/),
  branch_name: z.string(),
  status: CommitStatusSchema,
  notes: z.array(z.string()),
  retries: z.number().int().min(0),
  llm_tokens_used: z.number().min(0)
})
export type CommitResult = z.infer<typeof CommitResultSchema>
