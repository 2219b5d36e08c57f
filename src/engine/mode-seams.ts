import type { AgentError, CodeAgentInput, CodeAgentOutput, Commit } from '../contract/index.js'
import type { ModelClient } from '../model/index.js'
import type { PathPolicy } from '../policy/index.js'
import type { Logger } from '../run/index.js'
import type { AttemptSeams, RunContext } from './run-context.js'

/*
 * The one seam a way of running (src/modes) plugs into the engine through: RunMode and its parts.
 */

/** What an input loader may use: the run's policy, its model client (made on first use). */
interface InputContext {
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
  /**
   * What the input is about, in the log line that names the loaded plan: a follow-up's number is
   * a pull request's, and its commit goes on `baseBranch` (default: `Issue #N`, the plan's branch).
   */
  about?: { subject: string; on: string }
  /**
   * The plan is one a writer approved (`plan-approval: required`): the hash the approval named
   * and who gave it. The engine runs it only while the input still has that hash.
   */
  approved?: { hash: string; by: string }
  /** Branches the change is never committed or published to, beside the event's default branch. */
  protectedBranches?: readonly string[]
}

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

/**
 * How a way of running (src/modes) brings its contract onto this engine, declared before the
 * run: how the input is loaded, how each attempt is drafted, how the commit message ends, what
 * is done once the run is over, and the shape of the result file. Each is optional; without
 * them a run loads its input from the settings, drafts one call per planned file and writes
 * the contract's result.
 */
export interface RunMode extends AttemptSeams, ResultSeams {
  loadInput?: (ctx: InputContext) => Promise<ModeInput>
  /** How the run runs its plans (a task file: batch after batch); default: one plan. */
  plans?: (ctx: RunContext) => PlanRun
}

/**
 * How a run runs its plans, between the engine's opening of the run and its result: the engine
 * catches what it throws, has it roll back, keeps the last attempt, reports on the issue and
 * writes the result; a PlanRun says only what it did.
 */
export interface PlanRun {
  /** The plans run to their end: the run's response (a task file's may be a partial failure). */
  run(): Promise<CodeAgentOutput>
  /** After a stop: what the run had made, kept in the result beside the error. */
  stopped(error: AgentError): { details?: Record<string, unknown>; data?: Commit[] }
  /** After a stop: the repository put back; the problems doing so. */
  rollback(): Promise<string[]>
  /** The plan the run is on, once loaded: the issue it reports to, the attempt it keeps. */
  readonly input: CodeAgentInput | undefined
  /** The commit the change is made on, once its branch is prepared (a last attempt's base). */
  readonly baseCommit: string | undefined
  /** The run's own metrics (first) and those after the shared ones (last). */
  metrics(response: CodeAgentOutput): {
    own: Record<string, unknown>
    after: Record<string, unknown>
  }
  /** The branch and issue the run reports. */
  names(): { branch: string; issueNumber?: number }
}
