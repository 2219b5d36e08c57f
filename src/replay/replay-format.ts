import { z } from 'zod'
import type { RunConfig, SettingKey } from '../config.js'

/**
 * What `replay.json` holds: what a run needs to be run again offline. Read back from a file
 * anyone could hand over, so every field is checked here and the file never brings settings
 * that widen what a run may do: those are the replaying user's own (see replay-file.ts).
 */

/** Settings a replay takes from the recording: they shape the requests and the change only. */
export const REPLAYED_SETTINGS = [
  'model',
  'editFormat',
  'maxRepairs',
  'maxAttempts',
  'concurrency',
  'modelStream',
  'structuredOutput',
  'maxTokensPerDraft',
  'reproduction',
  'reproductionAttempts',
  'requireReproduction',
  'retryFlaky',
  'onPreexistingFailure',
  'outputLimit',
  'repoInstructions',
  'signoff',
  'dryRun'
] as const satisfies readonly SettingKey[]

/**
 * The commands a run ran and the trust it gave the plan's: recorded to be compared with the
 * replaying user's settings, never run from the recording.
 */
export const COMMAND_SETTINGS = [
  'validationCommands',
  'setupCommands',
  'formatCommand',
  'formatFixCommand',
  'lintCommand',
  'lintFixCommand',
  'typecheckCommand',
  'testCommand',
  'allowPlanCommands'
] as const satisfies readonly SettingKey[]

const OID = z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-character commit id')
const TEXT_LIMIT = 4 * 1024 * 1024
const text = (max = TEXT_LIMIT) => z.string().max(max)
const count = z.number().int().min(0).max(100_000_000)

/** One line: what the replay prints from the file can never forge a line of its own. */
const line = (max: number) =>
  z
    .string()
    .max(max)
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    .regex(/^[^\u0000-\u001f\u007f\u2028\u2029]*$/, 'expected one line without control characters')
const settingValue = z.union([line(10_000), z.number(), z.boolean()])
const commandValue = z.union([z.array(line(10_000)).max(100), line(10_000), z.boolean()])

export const replaySchema = z.strictObject({
  patchsmith_replay: z.literal(1),
  version: text(100),
  base_commit: OID,
  input: z.strictObject({
    issue: z.record(z.string(), z.unknown()),
    triage_result: z.record(z.string(), z.unknown()).optional(),
    /** Absent: the run wrote its plan (plan-less); the planning call is then replayed too. */
    fix_plan: z.record(z.string(), z.unknown()).optional(),
    repository_snapshot: z.record(z.string(), z.unknown()).optional()
  }),
  settings: z.partialRecord(z.enum(REPLAYED_SETTINGS), settingValue),
  commands: z.partialRecord(z.enum(COMMAND_SETTINGS), commandValue),
  exchanges: z
    .array(
      z.strictObject({
        label: line(1_000),
        attempt: count,
        messages: z
          .array(z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: text() }))
          .min(1)
          .max(100),
        reply: text(),
        reply_sha256: z.string().regex(/^[0-9a-f]{64}$/),
        finish_reason: z.enum(['stop', 'length', 'tool_calls']),
        usage: z.strictObject({
          prompt_tokens: count,
          completion_tokens: count,
          cached_prompt_tokens: count
        })
      })
    )
    .max(1_000),
  commands_run: z
    .array(
      z.strictObject({
        command: line(10_000),
        about: line(1_000).optional(),
        exit_code: z.number().int().nullable()
      })
    )
    .max(10_000),
  outcome: z.strictObject({
    success: z.boolean(),
    error_code: z
      .string()
      .regex(/^[A-Z_]{1,40}$/)
      .optional(),
    commits: z.array(z.strictObject({ sha: OID, tree: OID, branch: line(1_000) })).max(100)
  })
})

export type Replay = z.infer<typeof replaySchema>
export type ReplayExchange = Replay['exchanges'][number]
export type ReplayCommand = Replay['commands_run'][number]

/** The recorded settings a replay takes, as RunConfig keys. */
export function replayedSettings(config: RunConfig): Replay['settings'] {
  return Object.fromEntries(
    REPLAYED_SETTINGS.filter((key) => config[key] !== undefined).map((key) => [key, config[key]])
  )
}

/** The recorded commands and plan-command trust. */
export function commandSettings(config: Partial<RunConfig>): Replay['commands'] {
  return Object.fromEntries(
    COMMAND_SETTINGS.filter((key) => config[key] !== undefined).map((key) => [key, config[key]])
  )
}
