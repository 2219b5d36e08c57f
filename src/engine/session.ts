import type { RunConfig } from '../config.js'
import { InvalidInputError, type AgentError, type CodeAgentOutput } from '../contract/index.js'
import {
  ModelClient,
  parseHeaderLines,
  secretHint,
  type ModelClientOptions,
  type RunBudget
} from '../model/index.js'
import { assertActorAllowed } from '../policy/index.js'
import type { SecretMasker } from '../secrets/index.js'
import type { Logger, RunListener, RunnerFacts } from '../run/index.js'

/*
 * What every run is handed by its entry and hands back, the model client and the checks that
 * come before anything else.
 */

export interface AgentEnvironment extends RunnerFacts {
  logger: Logger
  /** Called with every value that must never appear in output (the runner's mask). */
  onSecret?: (value: string) => void
  /** Aborted by the entry on SIGINT, SIGTERM or SIGHUP: the run stops, rolls back, CANCELLED. */
  cancel?: AbortSignal
  /** Told of each phase, and tells the outcome on the issue (the progress comment). */
  progress?: RunListener
  /**
   * push: false leaves the checked-out branch as it was (the CLI, where it is a person's own):
   * the commit goes on the plan's branch. Without it (the action) push: false commits on the
   * checked-out base for a pull-request step to pick up.
   */
  unpushedOnOwnBranch?: boolean
  /**
   * The run's one masker (runMasker), when the entry needs it before the run starts (the
   * progress comment is posted first); made by the run otherwise.
   */
  masker?: SecretMasker
}

export interface AgentRun {
  response: CodeAgentOutput
  /** What the result file holds: the response, or the mode's own shape of it. */
  result: unknown
  /** The run's one masker, for what the entry writes after the run (the artifact). */
  mask: (text: string) => string
  outputPath: string
  /** The attempt logs (NN-request.json, NN-reply.txt, NN-build.txt), for the artifact. */
  logDir: string
  /** The run's replay recording (replay.json beside the result), when one was written. */
  replayFile?: string
  branch: string
  issueNumber?: number
}

const OPENAI_HOST = /^https:\/\/api\.openai\.com\b/

/** The client for the run: endpoint, key and headers from the settings, bound to the budget. */
export function modelClient(
  config: RunConfig,
  budget: RunBudget,
  logger: Logger,
  secret: (value: string) => void,
  scrub?: (text: string) => string,
  onExchange?: ModelClientOptions['onExchange']
): ModelClient {
  const apiKey = modelKey(config)
  const headers = parseHeaderLines(config.modelHeaders)
  // Header values often carry a gateway's own key; short ones (e.g. "1") would mask too much.
  Object.values(headers)
    .filter((value) => value.length >= 8)
    .forEach(secret)
  const client = new ModelClient({
    baseUrl: config.baseUrl,
    apiKey,
    model: config.model,
    timeoutMs: config.modelTimeout * 1000,
    maxRetries: config.modelRetries,
    maxInFlight: config.concurrency,
    headers,
    stream: config.modelStream,
    structuredOutput: config.structuredOutput,
    budget,
    log: logger,
    scrub,
    onExchange
  })
  const key = config.apiKey ? `key ${secretHint(apiKey)}` : 'no key'
  const extra = Object.keys(headers)
  logger.info(
    `Model ${config.model} at ${client.endpoint} (${key}` +
      (extra.length > 0 ? `, headers ${extra.join(', ')}` : '') +
      `); at most ${config.maxTokensPerDraft} prompt tokens per draft`
  )
  return client
}

/**
 * A run that failed after its time-limit passed (a validation command cut short by it, a
 * refused repair) is reported as the TIMEOUT it is, with the failure it ended on.
 */
export function withinTimeLimit(error: AgentError, budget: RunBudget): AgentError {
  if (error.code === 'TIMEOUT' || budget.limits.timeLimitMs <= 0 || budget.remainingMs() > 0) {
    return error
  }
  budget.stoppedBy = 'time-limit'
  const timeout = budget.timeLimitError('before the change was validated').toAgentError()
  return {
    ...timeout,
    details: {
      ...error.details,
      ...timeout.details,
      last_error: { code: error.code, message: error.message }
    }
  }
}

/** Only a person with `require-actor-permission` (or an allowed bot) may start a run. */
export function assertStarterAllowed(config: RunConfig, env: AgentEnvironment): Promise<void> {
  return assertActorAllowed({
    eventPath: env.eventPath,
    repository: env.repository,
    apiUrl: env.apiUrl,
    token: config.githubToken,
    required: config.requireActorPermission,
    allowedBots: config.allowedBots
  })
}

export function modelKey(config: RunConfig): string {
  if (config.apiKey) return config.apiKey
  if (OPENAI_HOST.test(config.baseUrl)) {
    throw new InvalidInputError(
      'No API key: set the "api-key" input (CLI: the OPENAI_API_KEY variable or --api-key-file FILE).',
      { field: 'api-key' }
    )
  }
  return 'none'
}
