import type { ValidationResult } from '../contract/index.js'
import { runCommand, type CommandOutcome, type CommandRunnerOptions } from './command-runner.js'
import type { PipelineStep } from './steps.js'

export interface BaseCheck {
  /** The command fails on the untouched base as well. */
  failsOnBase: boolean
  /** …with the same failure fingerprint. */
  sameFailure: boolean
}

/** How each command runs: the sandboxed runner's options, or a runner of the caller's own. */
export type PipelineOptions = PipelineRules &
  (
    | CommandRunnerOptions
    | { run: (command: string) => Promise<CommandOutcome>; signal?: AbortSignal }
  )

interface PipelineRules {
  /** Run a failing test step once more; a pass is kept but marked flaky. */
  retryFlaky: boolean
  /** Keep going past a failure that the base has too (`on-preexisting-failure: commit`). */
  keepPreexisting: boolean
  /** After a step's fix command ran: keep what it changed in the planned files only. */
  afterFix?: (step: PipelineStep) => Promise<void>
  /** Runs the failing command on the untouched base. */
  checkBase?: (step: PipelineStep, outcome: CommandOutcome) => Promise<BaseCheck>
}

export interface PipelineFailure {
  step: PipelineStep
  outcome: CommandOutcome
  base?: BaseCheck
}

export interface PipelineOutcome {
  results: ValidationResult[]
  /** Every command run, fix commands and reruns included, for the attempt log. */
  runs: CommandOutcome[]
  failed?: PipelineFailure
}

/**
 * Runs the steps in order and stops at the first failure that remains after the step's
 * own remedies: a fix command for format and lint, one rerun for flaky tests.
 */
export async function runPipeline(
  steps: readonly PipelineStep[],
  options: PipelineOptions
): Promise<PipelineOutcome> {
  const results: ValidationResult[] = []
  const runs: CommandOutcome[] = []
  const exec = 'run' in options ? options.run : (command: string) => runCommand(command, options)
  const run = async (command: string) => {
    const outcome = await exec(command)
    runs.push(outcome)
    return outcome
  }
  for (const step of steps) {
    let outcome = await run(step.command)
    // Cancelled or out of time: the command was killed; no fix, rerun or base check after it.
    if (options.signal?.aborted && outcome.exit_code !== 0) {
      results.push({ ...publicResult(outcome), step: step.step })
      return { results, runs, failed: { step, outcome } }
    }
    const marks: Partial<ValidationResult> = {}
    if (outcome.exit_code !== 0 && step.fix) {
      await run(step.fix)
      await options.afterFix?.(step)
      outcome = await run(step.command)
      if (outcome.exit_code === 0) marks.auto_fixed = true
    } else if (outcome.exit_code !== 0 && options.retryFlaky && isTest(step) && !outcome.timedOut) {
      outcome = await run(step.command)
      if (outcome.exit_code === 0) marks.flaky = true
    }
    let base: BaseCheck | undefined
    // A command that timed out is not run again unchanged: on the base it would hang as long.
    if (outcome.exit_code !== 0 && options.checkBase && !outcome.timedOut) {
      base = await options.checkBase(step, outcome)
      if (base.failsOnBase) marks.preexisting = true
    }
    results.push({ ...publicResult(outcome), step: step.step, ...marks })
    if (outcome.exit_code === 0) continue
    if (base?.failsOnBase && base.sameFailure && options.keepPreexisting) continue
    return { results, runs, failed: { step, outcome, base } }
  }
  return { results, runs }
}

function isTest(step: PipelineStep): boolean {
  return step.step === 'test' || step.step === 'command'
}

function publicResult(outcome: CommandOutcome): ValidationResult {
  const { command, exit_code, stdout, stderr, duration_ms } = outcome
  return { command, exit_code, stdout, stderr, duration_ms }
}
