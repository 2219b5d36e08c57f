import type { CarryRule, NetworkMode, TreeOverlay } from '../sandbox/index.js'
import { runCommand, type CommandOutcome, type CommandRunnerOptions } from '../validation/index.js'

/**
 * How a run runs the repository's commands (setup, validation, the base check): the attempt
 * loop knows only this, so a test can hand it a runner of its own.
 */
export interface CommandRunner {
  /** The work tree the commands run in. */
  readonly cwd: string
  /** Aborted when the run is cancelled or out of time: no fix, rerun or base check after it. */
  readonly signal?: AbortSignal
  run(
    command: string,
    options?: {
      network?: NetworkMode
      extraEnv?: Record<string, string>
      overlay?: TreeOverlay
      about?: string
    }
  ): Promise<CommandOutcome>
  /**
   * A fresh overlay of the work tree for one attempt's validation commands, where the sandbox
   * proved one; `keep`: repository paths a merge never deletes; `carry`: which of the
   * commands' changes reach the work tree.
   */
  overlay?(keep: readonly string[], carry?: CarryRule): TreeOverlay | undefined
}

/** `runner` with every command on `overlay`. */
export function onOverlay(runner: CommandRunner, overlay: TreeOverlay): CommandRunner {
  return {
    cwd: runner.cwd,
    signal: runner.signal,
    run: (command, options) => runner.run(command, { ...options, overlay })
  }
}

/** The real runner: in the run's sandbox, masked, capped, never past the time limit. */
export function sandboxedCommands(options: CommandRunnerOptions): CommandRunner {
  return {
    cwd: options.cwd,
    signal: options.signal,
    // Spread per command: the time-out is read when each command starts.
    run: (command, extra) => runCommand(command, { ...options, ...extra }),
    overlay: (keep, carry) => options.sandbox?.overlay(keep, carry)
  }
}
