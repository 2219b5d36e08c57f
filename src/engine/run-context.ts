import type { RunConfig } from '../config.js'
import { resolveEditFormat } from '../edits/index.js'
import { AttemptFile } from '../run-state/index.js'
import type { ModelClient } from '../model/index.js'
import { pipelineSteps } from '../validation/index.js'
import {
  AttemptProgress,
  sandboxedCommands,
  type AttemptSettings,
  type DraftContext,
  type Drafter,
  type FinishContext
} from '../agent/index.js'
import { runUrl } from '../run/index.js'
import type { AgentEnvironment } from './entry.js'
import type { RunSession } from './session.js'

/** A mode's part in the attempts and the commit (RunMode): its drafting, its messages. */
export interface AttemptSeams {
  drafter?: Drafter
  /**
   * Planned files a draft may leave as they are (`NO_CHANGES`): a follow-up on a failed check
   * plans every file of the pull request, and only some need a change. Asked after loadInput.
   */
  mayStayUnchanged?: (path: string) => boolean
  /** Rewrites each commit message before it is committed (trailers, no `Fixes #N`). */
  commitMessage?: (message: string) => string
  /**
   * The change is committed on the base and the base is published (a follow-up's pull request
   * branch), journaled as a plan's branch is: a base that moved on origin is followed first, as
   * a pushed branch's base is (agent/moved-base.ts).
   */
  pushesBase?: boolean
  /**
   * false: a commit made on the base (push: false) gets no branch of the plan's name beside it
   * for a pull-request step to pick up (a follow-up's commit goes on the pull request itself).
   */
  handOffBranch?: boolean
}

/** What one plan brings to its drafts; everything else is the run's (RunContext). */
export type DraftParts = Pick<
  DraftContext,
  'input' | 'base' | 'policy' | 'log' | 'style' | 'prompter'
> &
  Partial<Pick<DraftContext, 'drafter'>>

/** What one plan brings to its attempts: its drafts' parts, its branch and its commands. */
type PlanParts = DraftParts &
  Pick<AttemptSettings, 'branch'> &
  Partial<Pick<AttemptSettings, 'progress' | 'resume'>> & {
    /** The plan's validation commands, each one trusted (assertCommandsAllowed). */
    commands: string[]
  }

/**
 * One run's context, built once from the settings, the runner facts and the session: what every
 * plan of the run shares, and the one place the attempt loop's and the commit's settings are
 * put together from it.
 */
export class RunContext {
  readonly config: RunConfig
  readonly env: AgentEnvironment
  /** The attempt as the run goes: a stopped run keeps it in its result (last_attempt). */
  readonly progress = new AttemptProgress()
  /** The same attempt beside the journal: `resume` after a SIGKILL starts from it. */
  readonly kept: AttemptFile

  constructor(
    readonly session: RunSession,
    private readonly seams: AttemptSeams
  ) {
    this.config = session.config
    this.env = session.env
    this.kept = AttemptFile.for(session.repoDir)
  }

  /** Whether a commit on the base also gets the plan's branch (AttemptSeams.handOffBranch). */
  get handOffBranch(): boolean {
    return this.seams.handOffBranch !== false
  }

  get logger() {
    return this.session.logger
  }

  /** Whether the change publishes the base it is committed on (AttemptSeams.pushesBase). */
  get pushesBase(): boolean {
    return this.seams.pushesBase === true
  }

  /** The model client, made on first use. */
  model(): ModelClient {
    return this.session.modelClient()
  }

  /** How a plan's files are drafted: the plan's parts over the run's. */
  draftContext(parts: DraftParts): DraftContext {
    const { config } = this
    return {
      format: resolveEditFormat(config.editFormat, config.model),
      formatFor: (content) => resolveEditFormat(config.editFormat, config.model, content),
      concurrency: config.concurrency,
      drafter: this.seams.drafter,
      mayStayUnchanged: this.seams.mayStayUnchanged,
      model: this.model(),
      logger: this.logger,
      ...parts
    }
  }

  /** The attempt loop's settings: the plan's parts over the run's. */
  attemptSettings(parts: PlanParts): AttemptSettings {
    const { config, session } = this
    const { commands, branch, progress, resume, ...draft } = parts
    return {
      ...this.draftContext(draft),
      steps: pipelineSteps(config, commands),
      retryFlaky: config.retryFlaky,
      keepPreexisting: config.onPreexistingFailure === 'commit',
      reproduction: {
        mode: config.reproduction,
        attempts: config.reproductionAttempts,
        required: config.requireReproduction
      },
      maxRepairs: config.maxRepairs,
      unicodeTextPaths: config.unicodeTextPaths,
      validationKeep: config.validationKeep,
      removed: session.removed,
      // Made when the attempts start: the sandbox is open by then.
      runner: sandboxedCommands(session.commandRunner()),
      masker: session.masker,
      budget: session.budget,
      clock: session.clock,
      branch,
      progress,
      resume
    }
  }

  /**
   * How a validated change is committed: the plan's input and branches over the run's, and the
   * attempts' own validation for a base that moved meanwhile.
   */
  finishContext(
    parts: Pick<FinishContext, 'input' | 'git' | 'branch' | 'task'>,
    attempts: Pick<
      AttemptSettings,
      'steps' | 'runner' | 'retryFlaky' | 'policy' | 'log' | 'validationKeep' | 'removed'
    >
  ): FinishContext {
    const { config, env, session } = this
    const { steps, runner, retryFlaky, policy, log, validationKeep, removed } = attempts
    return {
      config,
      model: this.model(),
      masker: session.masker,
      clock: session.clock,
      logger: session.logger,
      onSecret: env.onSecret,
      rewriteMessage: this.seams.commitMessage,
      runUrl: runUrl(env),
      budget: session.budget,
      revalidation: {
        ...{ steps, runner, retryFlaky, policy, log, validationKeep, removed },
        logger: session.logger
      },
      pushesBase: this.seams.pushesBase,
      ...parts
    }
  }
}
