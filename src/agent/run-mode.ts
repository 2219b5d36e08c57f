import type { CodeAgentInput, CodeAgentOutput } from '../contract/index.js'
import type { ModelClient } from '../model/index.js'
import type { PathPolicy } from '../policy/index.js'
import type { Drafter } from './drafting.js'
import type { Logger } from './logger.js'

/** What an input loader may use: the run's policy, its model client (made on first use). */
export interface InputContext {
  repoDir: string
  policy: PathPolicy
  model: () => ModelClient
  logger: Logger
}

/** A mode's input, with the branch its change goes on when that is the input's to say. */
export interface ModeInput {
  input: CodeAgentInput
  /** The base the change is made on (a follow-up: the pull request's head), over base-branch. */
  baseBranch?: string
}

/** What the engine hands a mode once the run is over, before its result is written. */
export interface RunEnd {
  response: CodeAgentOutput
  /** The run's one masker: whatever a mode posts or writes goes through it. */
  mask: (text: string) => string
}

/**
 * How a way of running (src/modes) brings its contract onto this engine, declared before the
 * run: how the input is loaded, how each attempt is drafted, how the commit message ends, what
 * is done once the run is over, and the shape of the result file. Each is optional; without
 * them a run loads its input from the settings, drafts one call per planned file and writes
 * the contract's result.
 */
export interface RunMode {
  loadInput?: (ctx: InputContext) => Promise<ModeInput>
  drafter?: Drafter
  /** Rewrites each commit message before it is committed (trailers, no `Fixes #N`). */
  commitMessage?: (message: string) => string
  /**
   * Planned files a draft may leave as they are (`NO_CHANGES`): a follow-up on a failed check
   * plans every file of the pull request, and only some need a change. Asked after loadInput.
   */
  mayStayUnchanged?: (path: string) => boolean
  /**
   * The mode pushes the base branch itself once the run is over (a follow-up pushes onto the
   * pull request's branch): before that, a base that moved on origin is followed as a pushed
   * branch's base is (agent/moved-base.ts).
   */
  pushesBase?: boolean
  /**
   * After the run, before the result is written (a follow-up pushes and answers threads): the
   * response as it then stands, and the branch the change is on when that is another one.
   */
  after?: (end: RunEnd) => Promise<{ response: CodeAgentOutput; branch?: string }>
  /** The result file's content, from the run's masked response (default: the response). */
  result?: (response: CodeAgentOutput) => unknown
}
