import { z } from 'zod'
import { EDIT_FORMAT_SETTINGS } from './edits/index.js'
import { parseCeiling, parsePricing, runCap, STRUCTURED_MODES } from './model/index.js'
import { FORBIDDEN_EXTRA_NAME, NETWORK_MODES, SANDBOX_MODES } from './sandbox/index.js'
import { ConfigError, expandSettings } from './settings.js'
import type { Ceiling, RunCap } from './model/index.js'

export { ACTION_INPUTS, ACTION_INPUT_GROUPS, ConfigError, GROUPED_SETTINGS } from './settings.js'

/**
 * Every setting of a run and its default, in one schema. The action reads each key as the
 * input of the same name in kebab case (`maxRepairs` ← `max-repairs`), the CLI as the flag
 * of that name (`--max-repairs`); `SETTING_KINDS` tells both readers how to parse the text.
 */

const bool = (fallback: boolean) =>
  z
    .union([z.boolean(), z.string()])
    .transform((value, ctx) => {
      if (typeof value === 'boolean') return value
      const text = value.trim().toLowerCase()
      if (['true', 'yes', 'on', '1'].includes(text)) return true
      if (['false', 'no', 'off', '0'].includes(text)) return false
      ctx.addIssue({ code: 'custom', message: `expected true or false, got "${value}"` })
      return z.NEVER
    })
    .default(fallback)

const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback)

const list = () =>
  z
    .union([z.array(z.string()), z.string()])
    .transform((value) => (Array.isArray(value) ? value : value.split('\n')))
    .transform((items) => items.map((item) => item.trim()).filter((item) => item.length > 0))
    .default([])

const text = () => z.string().trim().optional()

const ceiling = (window: 'day' | 'week') =>
  text().superRefine((value, ctx) => {
    if (!value) return
    try {
      parseCeiling(window, value)
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message })
    }
  })

// The artifact a run uploads its result in, and the one a later run reads its inputs from.
const RESULT_ARTIFACT = 'patchsmith-result'

export const RunConfigSchema = z.strictObject({
  repo: z.string().min(1).default('.'),
  issue: text(),
  fixPlan: text(),
  triageResult: text(),
  taskFile: text(),
  agentInput: text(),
  issueNumber: z.coerce.number().int().positive().optional(),
  codingTask: text(),
  followUp: text(),
  maxFollowUpRounds: int(2, 1, 10),
  model: z.string().trim().min(1).default('gpt-4.1'),
  baseUrl: z.string().trim().url().default('https://api.openai.com/v1'),
  apiKey: text(),
  editFormat: z.enum(EDIT_FORMAT_SETTINGS).default('udiff'),
  validationCommands: list(),
  setupCommands: list(),
  formatCommand: text(),
  formatFixCommand: text(),
  lintCommand: text(),
  lintFixCommand: text(),
  typecheckCommand: text(),
  testCommand: text(),
  retryFlaky: bool(false),
  onPreexistingFailure: z.enum(['fail', 'commit']).default('fail'),
  reproduction: z.enum(['commit', 'evidence', 'off']).default('commit'),
  reproductionAttempts: int(2, 1, 5),
  requireReproduction: bool(false),
  logDir: text(),
  allowPlanCommands: bool(false),
  requireActorPermission: z
    .enum(['none', 'read', 'triage', 'write', 'maintain', 'admin'])
    .default('write'),
  allowedBots: list(),
  maxRepairs: int(3, 0, 10),
  concurrency: int(4, 1, 32),
  commandTimeout: int(300, 1, 86_400),
  modelTimeout: int(120, 1, 3_600),
  modelRetries: int(4, 0, 10),
  modelHeaders: list(),
  modelStream: bool(true),
  structuredOutput: z.enum(STRUCTURED_MODES).default('auto'),
  modelPricing: z
    .string()
    .trim()
    .optional()
    .superRefine((value, ctx) => {
      if (!value) return
      try {
        parsePricing(value)
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message })
      }
    }),
  budgetPerDay: ceiling('day'),
  budgetPerWeek: ceiling('week'),
  maxTokensPerDraft: int(5000, 500, 1_000_000),
  maxAttempts: int(4, 1, 20),
  maxTotalTokens: int(200_000, 0, 100_000_000),
  maxCost: z.coerce.number().min(0).max(1_000_000).default(0),
  timeLimit: int(1500, 0, 86_400),
  outputLimit: int(1000, 100, 1_000_000),
  blockedPaths: list(),
  allowProtectedPaths: list(),
  unicodeTextPaths: list(),
  repoInstructions: bool(true),
  push: bool(true),
  baseBranch: text(),
  signoff: bool(true),
  gitHooks: bool(false),
  commitSigning: z.enum(['git', 'github']).default('git'),
  sandbox: z.enum(SANDBOX_MODES).default('auto'),
  validationNetwork: z.enum(NETWORK_MODES).default('closed'),
  validationOverlay: bool(true),
  validationKeep: list(),
  validationEnv: list()
    .refine(
      (names) => names.every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)),
      'expected variable names, one per line'
    )
    .refine(
      (names) => !names.some((name) => FORBIDDEN_EXTRA_NAME.test(name)),
      "the runner's file commands, ACTIONS_*, INPUT_* and GITHUB_TOKEN are never passed to commands"
    ),
  githubToken: text(),
  commentOnFailure: bool(true),
  progressComment: bool(true),
  failureLabel: z.string().trim().default('automation-failed'),
  outputPath: text(),
  uploadArtifact: bool(true),
  artifactName: z.string().trim().min(1).default(RESULT_ARTIFACT),
  artifactRunId: z.string().trim().regex(/^\d+$/, 'expected a workflow run id (digits)').optional(),
  inputArtifactName: z.string().trim().min(1).default(RESULT_ARTIFACT),
  resume: text(),
  planApproval: z.enum(['off', 'required']).default('off'),
  // GitHub's own limit on a label's name.
  approvalLabel: z.string().trim().min(1).max(50).default('patchsmith-approved'),
  issues: text(),
  dryRun: bool(false),
  // The grouped settings as `name: value` lines; parseRunConfig spreads them over their keys.
  settings: list()
})

export type RunConfigInput = z.input<typeof RunConfigSchema>
export type RunConfig = z.output<typeof RunConfigSchema>
export type SettingKey = keyof RunConfig
type SettingKind = 'text' | 'boolean' | 'list'

/** How each setting is written as text: a flag, a list (one per line or a repeated flag), or text. */
export const SETTING_KINDS: Record<SettingKey, SettingKind> = {
  repo: 'text',
  issue: 'text',
  fixPlan: 'text',
  triageResult: 'text',
  taskFile: 'text',
  agentInput: 'text',
  issueNumber: 'text',
  codingTask: 'text',
  followUp: 'text',
  maxFollowUpRounds: 'text',
  model: 'text',
  baseUrl: 'text',
  apiKey: 'text',
  editFormat: 'text',
  validationCommands: 'list',
  setupCommands: 'list',
  formatCommand: 'text',
  formatFixCommand: 'text',
  lintCommand: 'text',
  lintFixCommand: 'text',
  typecheckCommand: 'text',
  testCommand: 'text',
  retryFlaky: 'boolean',
  onPreexistingFailure: 'text',
  reproduction: 'text',
  reproductionAttempts: 'text',
  requireReproduction: 'boolean',
  logDir: 'text',
  allowPlanCommands: 'boolean',
  requireActorPermission: 'text',
  allowedBots: 'list',
  maxRepairs: 'text',
  concurrency: 'text',
  commandTimeout: 'text',
  modelTimeout: 'text',
  modelRetries: 'text',
  modelHeaders: 'list',
  modelStream: 'boolean',
  structuredOutput: 'text',
  modelPricing: 'text',
  budgetPerDay: 'text',
  budgetPerWeek: 'text',
  maxTokensPerDraft: 'text',
  maxAttempts: 'text',
  maxTotalTokens: 'text',
  maxCost: 'text',
  timeLimit: 'text',
  outputLimit: 'text',
  blockedPaths: 'list',
  allowProtectedPaths: 'list',
  unicodeTextPaths: 'list',
  repoInstructions: 'boolean',
  push: 'boolean',
  baseBranch: 'text',
  signoff: 'boolean',
  gitHooks: 'boolean',
  commitSigning: 'text',
  sandbox: 'text',
  validationNetwork: 'text',
  validationOverlay: 'boolean',
  validationKeep: 'list',
  validationEnv: 'list',
  githubToken: 'text',
  commentOnFailure: 'boolean',
  progressComment: 'boolean',
  failureLabel: 'text',
  outputPath: 'text',
  uploadArtifact: 'boolean',
  artifactName: 'text',
  artifactRunId: 'text',
  inputArtifactName: 'text',
  resume: 'text',
  planApproval: 'text',
  approvalLabel: 'text',
  issues: 'text',
  dryRun: 'boolean',
  settings: 'list'
}

export const SETTING_KEYS = Object.keys(SETTING_KINDS) as SettingKey[]

/** `maxRepairs` → `max-repairs`: the action input and CLI flag name of a setting. */
export function settingName(key: SettingKey): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)
}

export function parseRunConfig(input: RunConfigInput): RunConfig {
  const result = RunConfigSchema.safeParse(expandSettings(input))
  if (result.success) {
    if (result.data.maxCost > 0 && !result.data.modelPricing)
      throw new ConfigError(
        'Setting "max-cost": it needs model-pricing (a "model-pricing: <input> <cached input> <output>" line of settings, USD per million tokens) to price the calls.',
        'max-cost'
      )
    assertSigningFits(result.data)
    assertBudgetFits(result.data)
    assertApprovalFits(result.data)
    assertBatchFits(result.data)
    return result.data
  }
  const issue = result.error.issues[0]
  const key = issue?.path[0]
  const name = typeof key === 'string' ? settingName(key as SettingKey) : 'settings'
  throw new ConfigError(`Setting "${name}": ${issue?.message ?? 'invalid value'}`, name)
}

/** The rolling budgets' ceilings, from the budget-per-day and budget-per-week lines. */
export function budgetCeilings(config: RunConfig): Ceiling[] {
  return [
    ...(config.budgetPerDay ? [parseCeiling('day', config.budgetPerDay)] : []),
    ...(config.budgetPerWeek ? [parseCeiling('week', config.budgetPerWeek)] : [])
  ]
}

/** What one run reserves of the rolling budgets: its caps (runCap). */
export function budgetCap(config: RunConfig): RunCap {
  return runCap(budgetCeilings(config), {
    maxTotalTokens: config.maxTotalTokens,
    maxCost: config.maxCost,
    pricing: config.modelPricing ? parsePricing(config.modelPricing) : undefined
  })
}

/** A ceiling needs a cap of its unit to reserve, and a cap that fits in it. */
function assertBudgetFits(config: RunConfig): void {
  const ceilings = budgetCeilings(config)
  if (ceilings.length === 0) return
  try {
    budgetCap(config)
  } catch (error) {
    const name = `budget-per-${ceilings[0]!.window}`
    throw new ConfigError(`Setting "${name}": ${(error as Error).message}.`, name)
  }
}

/** The API commit needs a branch on GitHub to point at it, and one per run. */
function assertSigningFits(config: RunConfig): void {
  if (config.commitSigning !== 'github') return
  const refuse = (why: string) => {
    throw new ConfigError(`Setting "commit-signing": ${why}`, 'commit-signing')
  }
  if (!config.push && !config.dryRun)
    refuse(
      'github makes the commit through the GitHub API on the branch on origin, so it needs push: true. With push: false let the pull-request step sign (create-pull-request: sign-commits: true), or leave commit-signing unset.'
    )
  if (config.taskFile) refuse('github does not yet work with task-file; leave it unset.')
}

/** Plan approval holds one plan (given or plan-less); the other ways of running have none to hold. */
function assertApprovalFits(config: RunConfig): void {
  if (config.planApproval !== 'required') return
  const other = config.issues
    ? 'issues'
    : config.taskFile
      ? 'task-file'
      : config.codingTask
        ? 'coding-task'
        : config.followUp
          ? 'follow-up'
          : undefined
  if (other)
    throw new ConfigError(
      `Setting "plan-approval": required holds one plan for approval (a fix plan, or one Patchsmith plans); it does not work with ${other}.`,
      'plan-approval'
    )
}

/** A batch plans each of its issues itself: an issue, a plan or another way of running is refused. */
function assertBatchFits(config: RunConfig): void {
  if (!config.issues) return
  const other = ['fixPlan', 'agentInput', 'taskFile', 'codingTask', 'followUp', 'issue'].find(
    (key) => config[key as keyof RunConfig] !== undefined
  )
  if (other)
    throw new ConfigError(
      `Setting "issues": a batch plans each of its issues itself; leave ${settingName(other as SettingKey)} unset.`,
      'issues'
    )
}
