import type { RunConfig } from '../config.js'
import {
  outcomeOf,
  toAgentError,
  type AgentError,
  type CodeAgentOutput
} from '../contract/index.js'
import type { Git } from '../git/index.js'
import type { RunLock } from '../run-state/index.js'
import { DraftPrompter, modelMetrics, type ModelClient } from '../model/index.js'
import { issueFocus } from '../planning/index.js'
import { pullRequestText, writeResultFile } from '../report/index.js'
import { validationEnv, type Sandbox } from '../sandbox/index.js'
import type { CommandRunnerOptions } from '../validation/index.js'
import { claimRepository, openSandbox, startRun, type RunSetup } from './run-setup.js'
import { BudgetLedger } from './budget-ledger.js'
import { RunRecorder } from '../replay/index.js'
import { recordReplay, type ReplayFacts } from './replay-record.js'
import { runSetupCommands } from '../agent/index.js'
import { runUrl } from '../run/index.js'
import {
  assertStarterAllowed,
  modelClient,
  modelKey,
  withinTimeLimit,
  type AgentEnvironment,
  type AgentRun
} from './session.js'
import type { StyleConfig } from '../contract/index.js'

/** What the engine hands a mode once the run is over, before its result is written. */
export interface RunEnd {
  response: CodeAgentOutput
  /** The run's one masker: whatever a mode posts or writes goes through it. */
  mask: (text: string) => string
}

/** A mode's part in the end of the run (RunMode): what it does after, its result's shape. */
export interface ResultSeams {
  /**
   * After the run, before the result is written (a follow-up pushes and answers threads): the
   * response as it then stands, and the branch the change is on when that is another one.
   */
  after?: (end: RunEnd) => Promise<{ response: CodeAgentOutput; branch?: string }>
  /** The result file's content, from the run's masked response (default: the response). */
  result?: (response: CodeAgentOutput) => unknown
  /**
   * false: no pull-request text in a green result (a follow-up's change goes on a pull request
   * that exists; seed code-commit leaves its commit to a supervisor).
   */
  pullRequest?: false
}

/** What the engine names once the run is over: its branch and issue, for the result and the entry. */
export interface RunNames {
  branch: string
  issueNumber?: number
  /** The issue's title: the pull request's "why" when the plan gives no other. */
  issueTitle?: string
  /** The plan's steps, for the pull-request body. */
  planSteps?: readonly unknown[]
}

/**
 * One run's state from its first check to its result file, whatever it runs (one plan, or a
 * task file's plans one after another): the settings, the clock and budgets, the masker, the
 * sandbox, the work tree's lock, the model client, and how a failure and the result are
 * reported. The engine (engine.ts) holds it; a PlanRun says only what differs: the steps in between.
 */
export class RunSession {
  readonly setup: RunSetup
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
    this.setup = startRun(config, env)
  }

  get logger() {
    return this.setup.logger
  }

  get budget() {
    return this.setup.budget
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
    this.sandbox = await openSandbox(this.config, this.setup)
    this.lock = await claimRepository(this.setup.repoDir, this.config, this.logger, this.env)
    if (this.lock)
      this.ledger = await BudgetLedger.reserve(
        this.config,
        this.setup.repoDir,
        this.env,
        this.logger
      )
  }

  /** setup-commands on the checked-out base, before drafting (setup-commands.ts). */
  async setupCommands(): Promise<void> {
    if (this.config.setupCommands.length === 0) return
    await this.setup.clock.time('validate', () =>
      runSetupCommands(this.config, this.commandRunner(), this.logger)
    )
  }

  /** A value that must never appear in output: masked here and by the runner. */
  readonly secret = (value: string): void => {
    this.setup.masker.add(value)
    this.env.onSecret?.(value)
  }

  /** The model client, made on first use (a plan-less run asks the model while loading). */
  modelClient(): ModelClient {
    return (this.model ??= modelClient(
      this.config,
      this.budget,
      this.logger,
      this.secret,
      (text) => this.setup.masker.maskKnown(text),
      this.recorder.onExchange
    ))
  }

  draftPrompter(style?: StyleConfig): DraftPrompter {
    return (this.prompter = new DraftPrompter({
      repoDir: this.setup.repoDir,
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
      cwd: this.setup.repoDir,
      // Read when each validation round starts: no command may run past the time-limit.
      get timeoutMs() {
        return Math.max(1_000, Math.min(config.commandTimeout * 1000, budget.remainingMs()))
      },
      outputLimit: config.outputLimit,
      masker: this.setup.masker,
      env: validationEnv(this.env.vars, config.validationEnv),
      sandbox: this.sandbox,
      signal: budget.signal,
      onStart: this.recorder.commandStart(this.env.progress?.command?.bind(this.env.progress))
    }
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
  readonly mask = (text: string): string => this.setup.masker.mask(text)

  /**
   * The end of every run: the metrics every run has after the run's own, what the mode does
   * after the run, the sandbox and the lock given back, the result shaped by the mode, masked
   * with the run's one masker and written: once.
   */
  async finish(
    response: CodeAgentOutput,
    own: Record<string, unknown>,
    after: Record<string, unknown>,
    { issueTitle, planSteps, ...names }: RunNames,
    mode: ResultSeams,
    replay?: ReplayFacts
  ): Promise<AgentRun> {
    const { clock, outputPath, logDir } = this.setup
    response.metrics = {
      ...own,
      ...modelMetrics(this.model, this.prompter, this.budget),
      git_processes: (this.git?.processCount ?? 0) + (this.sandbox?.gitProcesses ?? 0),
      ...(this.sandbox ? { sandbox: this.sandbox.backend } : {}),
      ...(runUrl(this.env) ? { run_url: runUrl(this.env) } : {}),
      ...(this.sandbox?.active ? { validation_network: this.sandbox.network } : {}),
      ...(this.setup.removed.metric ? { removed_after_validation: this.setup.removed.metric } : {}),
      phase_ms: clock.totals,
      duration_ms: clock.elapsed(),
      ...after
    }
    // What the run spent, over its reservation, before anything else can fail.
    if (this.ledger) response.rolling_budget = await this.ledger.settle(this.budget, this.logger)
    response.outcome ??= outcomeOf(response)
    let masked = this.masked(response)
    let branch = names.branch
    const replayFile =
      replay &&
      (await recordReplay(
        this,
        { outputPath, logDir, repoDir: this.setup.repoDir },
        replay,
        response,
        this.mask
      ))
    try {
      if (mode.after) {
        const after = await mode.after({ response: masked, mask: this.mask })
        masked = this.masked(after.response)
        branch = after.branch ?? branch
      }
    } finally {
      this.git?.objects.close()
      this.sandbox?.dispose()
      this.lock?.release()
    }
    if (mode.pullRequest !== false)
      masked = this.withPullRequest(masked, names, { issueTitle, planSteps })
    const result = mode.result ? this.masked(mode.result(masked)) : masked
    writeResultFile(outputPath, result)
    return {
      response: masked,
      result,
      mask: this.mask,
      outputPath,
      logDir,
      ...(replayFile ? { replayFile } : {}),
      ...names,
      branch
    }
  }

  /**
   * A green run's pull request, ready to open: rendered once, here, from the masked response
   * (what the model wrote is masked before it is quoted), then masked itself.
   */
  private withPullRequest(
    response: CodeAgentOutput,
    names: { issueNumber?: number },
    about: { issueTitle?: string; planSteps?: readonly unknown[] }
  ): CodeAgentOutput {
    const commits = response.data ?? []
    if (!response.success || commits.length === 0) return response
    const issueNumber = names.issueNumber ?? commits[0]?.issue_number
    const text = pullRequestText(commits, response.metrics, {
      issueNumber,
      ...about,
      runUrl: runUrl(this.env)
    })
    return { ...response, pull_request: this.masked(text) }
  }

  private masked<T>(value: T): T {
    return JSON.parse(this.mask(JSON.stringify(value))) as T
  }
}
