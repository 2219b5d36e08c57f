import type { RunConfig } from '../config.js'
import {
  toAgentError,
  type AgentError,
  type RollingBudget,
  type StyleConfig
} from '../contract/index.js'
import type { Git } from '../git/index.js'
import type { RunLock } from '../run-state/index.js'
import {
  DraftPrompter,
  modelMetrics,
  parsePricing,
  RunBudget,
  type ModelClient
} from '../model/index.js'
import { issueFocus } from '../planning/index.js'
import { assertActorAllowed } from '../policy/index.js'
import { RunRecorder } from '../replay/index.js'
import { validationEnv, type Sandbox } from '../sandbox/index.js'
import { SecretMasker } from '../secrets/index.js'
import type { CommandRunnerOptions } from '../validation/index.js'
import { RemovedAfterValidation, runSetupCommands } from '../agent/index.js'
import { PhaseClock, runUrl, type Logger, type RunnerFacts } from '../run/index.js'
import { BudgetLedger } from './budget-ledger.js'
import type { AgentEnvironment } from './entry.js'
import { modelClient, modelKey } from './model-client.js'
import { runOutputs } from './output-paths.js'
import { claimRepository } from './repository-claim.js'
import { openSandbox } from './sandbox-choice.js'

/**
 * The open run, from its first check to its result file, whatever it runs (one plan, or a task
 * file's plans one after another): the settings, the clock and budgets, every secret registered
 * and masked, where the result and the attempt logs go, the sandbox, the work tree's lock, the
 * model client, and how a failure is told. The engine (engine.ts) holds it and ends it
 * (result.ts); a PlanRun says only what differs: the steps in between.
 */
export class RunSession {
  readonly clock: PhaseClock
  /** What validation left that the run removed (metrics.removed_after_validation). */
  readonly removed = new RemovedAfterValidation()
  readonly budget: RunBudget
  readonly masker: SecretMasker
  /** The caller's logger behind the masker. */
  readonly logger: Logger
  readonly repoDir: string
  readonly outputPath: string
  /** Folders the run's outputs go to (the result's, the CLI's pull-request body's): hidden in the jail. */
  readonly outputFolders: string[]
  readonly logDir: string
  sandbox?: Sandbox
  git?: Git
  prompter?: DraftPrompter
  /** The model calls and commands of the run, for its replay file. */
  readonly recorder = new RunRecorder()
  private lock?: RunLock
  private model?: ModelClient
  private ledger?: BudgetLedger

  constructor(
    readonly config: RunConfig,
    readonly env: AgentEnvironment
  ) {
    const masker = (this.masker = env.masker ?? runMasker(config, env.vars))
    for (const value of masker.values()) env.onSecret?.(value)
    const outputs = runOutputs(config, env.vars, env.outputFiles)
    this.repoDir = outputs.repoDir
    this.outputPath = outputs.outputPath
    this.outputFolders = outputs.outputFolders
    this.logDir = outputs.logDir
    this.clock = new PhaseClock(env.progress)
    this.budget = new RunBudget(
      {
        maxAttempts: config.maxAttempts,
        maxTotalTokens: config.maxTotalTokens,
        timeLimitMs: config.timeLimit * 1000,
        maxCostUsd: config.maxCost,
        ...(config.modelPricing ? { pricing: parsePricing(config.modelPricing) } : {})
      },
      env.cancel
    )
    // The runner masks registered values only; pattern rules (keys, tokens) are applied here.
    this.logger = {
      info: (message) => env.logger.info(masker.mask(message)),
      warn: (message) => env.logger.warn(masker.mask(message)),
      debug: (message) => env.logger.debug(masker.mask(message))
    }
  }

  /**
   * What comes before anything is read or changed, cheapest first: a missing API key, the actor
   * (then the progress comment is posted), the sandbox, then the work tree's lock (and a dead
   * run's journal carried out), then this run's cap reserved in the rolling budget before any
   * model call (BudgetExhausted when it has no room).
   */
  async open(): Promise<void> {
    modelKey(this.config)
    await assertStarterAllowed(this.config, this.env)
    // Only now: a refused starter never sees "working on this", only the refusal.
    await this.env.progress?.start?.()
    const { repoDir, logger, outputFolders, logDir } = this
    this.sandbox = await openSandbox(this.config, {
      repoDir,
      logger,
      outputFolders,
      logDir,
      vars: this.env.vars
    })
    this.lock = await claimRepository(this.repoDir, this.config, this.logger, this.env)
    if (this.lock)
      this.ledger = await BudgetLedger.reserve(this.config, this.repoDir, this.env, this.logger)
  }

  /** setup-commands on the checked-out base, before drafting (setup-commands.ts). */
  async setupCommands(): Promise<void> {
    if (this.config.setupCommands.length === 0) return
    await this.clock.time('validate', () =>
      runSetupCommands(this.config, this.commandRunner(), this.logger)
    )
  }

  /** A value that must never appear in output: masked here and by the runner. */
  readonly secret = (value: string): void => {
    this.masker.add(value)
    this.env.onSecret?.(value)
  }

  /** The model client, made on first use (a plan-less run asks the model while loading). */
  modelClient(): ModelClient {
    return (this.model ??= modelClient(
      this.config,
      this.budget,
      this.logger,
      this.secret,
      (text) => this.masker.maskKnown(text),
      this.recorder.onExchange
    ))
  }

  draftPrompter(style?: StyleConfig): DraftPrompter {
    return (this.prompter = new DraftPrompter({
      repoDir: this.repoDir,
      maxTokens: this.config.maxTokensPerDraft,
      style,
      budget: this.budget,
      focus: issueFocus
    }))
  }

  /** How validation commands run: in the sandbox, masked, capped, and never past time-limit. */
  commandRunner(): CommandRunnerOptions {
    const { config, budget } = this
    return {
      cwd: this.repoDir,
      // Read when each validation round starts: no command may run past the time-limit.
      get timeoutMs() {
        return commandLimitMs(config, budget)
      },
      outputLimit: config.outputLimit,
      masker: this.masker,
      env: validationEnv(this.env.vars, config.validationEnv),
      sandbox: this.sandbox,
      signal: budget.signal,
      onStart: this.recorder.commandStart(this.env.progress?.command?.bind(this.env.progress))
    }
  }

  /**
   * With `git-hooks: true`, git runs the repository's hooks in the sandbox (Git.hookJail) and,
   * like a validation command, never past command-timeout.
   */
  hooksFor(git: Git): void {
    const { config, budget, sandbox } = this
    if (!config.gitHooks) return
    git.hookLimitMs = () => commandLimitMs(config, budget)
    if (sandbox?.active)
      git.hookJail = { sandbox, env: validationEnv(this.env.vars, config.validationEnv) }
  }

  /** Any failure as the contract error it is, logged (unexpected ones with their stack). */
  failure(error: unknown): AgentError {
    const agentError = withinTimeLimit(toAgentError(error), this.budget)
    this.logger.warn(`${agentError.code}: ${agentError.message}`)
    if (agentError.code === 'INTERNAL_ERROR' && error instanceof Error && error.stack)
      this.logger.warn(error.stack)
    return agentError
  }

  /** The run's one masker, as a function: for what a mode or an entry writes or posts. */
  readonly mask = (text: string): string => this.masker.mask(text)

  /** The metrics every run has, as they stand at its end (after the run's own). */
  metrics(): Record<string, unknown> {
    const { clock, sandbox } = this
    return {
      ...modelMetrics(this.model, this.prompter, this.budget),
      git_processes: (this.git?.processCount ?? 0) + (sandbox?.gitProcesses ?? 0),
      ...(sandbox ? { sandbox: sandbox.backend } : {}),
      ...(runUrl(this.env) ? { run_url: runUrl(this.env) } : {}),
      ...(sandbox?.active ? { validation_network: sandbox.network } : {}),
      ...(this.removed.metric ? { removed_after_validation: this.removed.metric } : {}),
      phase_ms: clock.totals,
      duration_ms: clock.elapsed()
    }
  }

  /** What the run spent, settled over its reservation in the rolling budget (when it took one). */
  async settleBudget(): Promise<RollingBudget | undefined> {
    return this.ledger ? this.ledger.settle(this.budget, this.logger) : undefined
  }

  /** The object reader, the sandbox and the work tree's lock given back. */
  close(): void {
    this.git?.objects.close()
    this.sandbox?.dispose()
    this.lock?.release()
  }
}

/** The run's one masker: every secret the settings and the environment hold, and the patterns. */
export function runMasker(config: RunConfig, vars: RunnerFacts['vars']): SecretMasker {
  return SecretMasker.forRun({
    apiKey: config.apiKey,
    githubToken: config.githubToken,
    env: vars,
    validationEnv: config.validationEnv
  })
}

/** How long one command may run: command-timeout, and never past the run's time-limit. */
function commandLimitMs(config: RunConfig, budget: RunBudget): number {
  return Math.max(1_000, Math.min(config.commandTimeout * 1000, budget.remainingMs()))
}

/**
 * A run that failed after its time-limit passed (a validation command cut short by it, a
 * refused repair) is reported as the TIMEOUT it is, with the failure it ended on.
 */
export function withinTimeLimit(error: AgentError, budget: RunBudget): AgentError {
  if (error.code === 'TIMEOUT' || budget.limits.timeLimitMs <= 0 || budget.remainingMs() > 0) {
    return error
  }
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
function assertStarterAllowed(config: RunConfig, env: AgentEnvironment): Promise<void> {
  return assertActorAllowed({
    eventPath: env.eventPath,
    repository: env.repository,
    apiUrl: env.apiUrl,
    token: config.githubToken,
    required: config.requireActorPermission,
    allowedBots: config.allowedBots
  })
}
