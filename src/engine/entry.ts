import type { CodeAgentOutput } from '../contract/index.js'
import type { SecretMasker } from '../secrets/index.js'
import type { Logger, RunListener, RunnerFacts } from '../run/index.js'

/* What every run is handed by its entry (the action, the CLI) and hands back. */

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
  /**
   * Other files the entry writes once the run ends (the CLI's `--pull-request-body`): checked
   * before any work and hidden from validation, as the result file is.
   */
  outputFiles?: ReadonlyArray<{ path: string; field: string }>
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
