import type { ValidationResult } from '../contract/index.js'
import { runCommand, type CommandOutcome, type CommandRunnerOptions } from './command-runner.js'
import type { PipelineStep } from './steps.js'
import {
  judgeCommand,
  type CommandRun,
  type CommandVerdict,
  type IssueContext
} from './verdict/index.js'

export interface BaseCheck {
  /** The command fails on the untouched base as well. */
  failsOnBase: boolean
  /** …with the same failure fingerprint. */
  sameFailure: boolean
  /** What the command printed on the base: compared per test with what it prints after the draft. */
  run?: CommandRun
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
  /** What ties a failure to the issue: a failure it names is the draft's to fix. */
  issue?: IssueContext
  /** Run passing test commands on the base too, so the proof shows what the change flipped. */
  proveOnBase?: boolean
}

export interface PipelineFailure {
  step: PipelineStep
  outcome: CommandOutcome
  base?: BaseCheck
  /** The failure held against the base and the issue: targets to repair, unrelated ones to leave. */
  verdict?: CommandVerdict
}

export interface PipelineOutcome {
  results: ValidationResult[]
  /** Every command run, fix commands and reruns included, for the attempt log. */
  runs: CommandOutcome[]
  failed?: PipelineFailure
  /** Each command run to its end, held against the base: the proof. */
  verdicts: CommandVerdict[]
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
  const verdicts: CommandVerdict[] = []
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
      return { results, runs, verdicts, failed: { step, outcome } }
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
    const wantsBase = outcome.exit_code !== 0 || (options.proveOnBase && isTest(step))
    // A command that timed out is not run again unchanged: on the base it would hang as long.
    if (wantsBase && options.checkBase && !outcome.timedOut) {
      base = await options.checkBase(step, outcome)
    }
    const verdict = judgeCommand(
      step.command,
      base?.run,
      commandRun(outcome),
      options.issue ?? { text: '' }
    )
    verdicts.push(verdict)
    const failed = { step, outcome, base, verdict }
    if (unrelatedOnly(failed)) marks.preexisting = true
    results.push({ ...publicResult(outcome), step: step.step, ...marks })
    if (outcome.exit_code === 0) continue
    if (unrelatedOnly(failed) && options.keepPreexisting) continue
    return { results, runs, verdicts, failed }
  }
  return { results, runs, verdicts }
}

/**
 * A failure that is no target: the command fails on the base too, and each of its failures is
 * the same there and tied to nothing in the issue or plan. It costs no repair.
 */
export function unrelatedOnly(failed: PipelineFailure): boolean {
  const { outcome, base, verdict } = failed
  return (
    outcome.exit_code !== 0 &&
    base?.failsOnBase === true &&
    verdict !== undefined &&
    verdict.failures.length > 0 &&
    verdict.failures.every((f) => f.kind === 'unrelated')
  )
}

/** What a command printed, how it ended and the report files it wrote: what the verdict compares. */
export function commandRun(outcome: CommandOutcome): CommandRun {
  const files = outcome.reportFiles?.report
  return {
    exit_code: outcome.exit_code,
    stdout: outcome.full.stdout,
    stderr: outcome.full.stderr,
    ...(files ? { files } : {})
  }
}

function isTest(step: PipelineStep): boolean {
  return step.step === 'test' || step.step === 'command'
}

function publicResult(outcome: CommandOutcome): ValidationResult {
  const { command, exit_code, stdout, stderr, duration_ms } = outcome
  return { command, exit_code, stdout, stderr, duration_ms }
}

/**
 * Why no repair was asked for. Committing is suggested only when the change demonstrably fixed
 * something (a test that failed on the base passes): never for a change that fixed nothing.
 */
export function noRepairReason(verdicts: readonly CommandVerdict[]): string {
  const fixed = verdicts.flatMap((v) => v.fixed)
  const base =
    'what still fails fails the same way on the base branch and nothing in the issue or plan names it, so no repair was asked for'
  return fixed.length > 0
    ? `${base}; the change fixed ${fixed.slice(0, 5).join(', ')} (on-preexisting-failure: commit keeps such a change)`
    : `${base}; the change fixed no failing test either`
}
