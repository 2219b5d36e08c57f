import {
  SecurityViolationError,
  ValidationFailedError,
  type ValidationResult
} from '../contract/index.js'
import type { FileEdit } from '../edits/index.js'
import type { ChangeBranch } from '../change/index.js'
import {
  commandRun,
  failureFingerprint,
  runPipeline,
  settle,
  unrelatedOnly,
  type BaseCheck,
  type IssueContext,
  type CommandOutcome,
  type PipelineFailure,
  type PipelineOutcome,
  type PipelineStep
} from '../validation/index.js'
import type { CommandRunner } from './commands.js'

/** A run's change as it stands: the edits from the base, the diff that applies them, and git's staged patch. */
export interface Applied {
  edits: FileEdit[]
  diff: string
  staged: string
}

export interface RoundSettings {
  steps: readonly PipelineStep[]
  runner: CommandRunner
  retryFlaky: boolean
  keepPreexisting: boolean
  branch: ChangeBranch
  /** What ties a failure to the issue (the issue, plan and triage text). */
  issue?: IssueContext
  /** Before git looks at the tree between two commands (guardTree's). */
  dropSpecialFiles?: () => Promise<void>
}

/**
 * One attempt's validation, and the one place where it is held against the base: a failing
 * command runs once more on the untouched base (once per command and run: `baseChecks`), so the
 * result tells a failure that was already there from one the change introduced.
 */
export function validateRound(
  settings: RoundSettings,
  current: () => Applied,
  baseChecks: Map<string, BaseCheck>,
  afterFix: () => Promise<void>
): Promise<PipelineOutcome> {
  return runPipeline(settings.steps, {
    run: (command) => settings.runner.run(command),
    signal: settings.runner.signal,
    retryFlaky: settings.retryFlaky,
    keepPreexisting: settings.keepPreexisting,
    issue: settings.issue,
    proveOnBase: true,
    afterFix: async () => {
      await settings.dropSpecialFiles?.()
      await afterFix()
    },
    checkBase: (step, outcome) => checkOnBase(settings, step, outcome, current(), baseChecks)
  })
}

/** The failing command once more, on the untouched base; then the change is put back. */
async function checkOnBase(
  settings: RoundSettings,
  step: PipelineStep,
  outcome: CommandOutcome,
  applied: Applied,
  cache: Map<string, BaseCheck>
): Promise<BaseCheck> {
  const known = cache.get(step.command)
  const fingerprint = failureFingerprint(
    outcome.exit_code,
    outcome.full.stdout,
    outcome.full.stderr
  )
  // Known from an earlier attempt or the runs before the first draft: the same failure is
  // judged against this attempt's output.
  if (known)
    return {
      ...known,
      sameFailure:
        known.failsOnBase &&
        known.run !== undefined &&
        failureFingerprint(known.run.exit_code, known.run.stdout, known.run.stderr) === fingerprint
    }
  await settings.branch.unapply(settings.dropSpecialFiles)
  const index = settings.branch.baseIndexFile
  const about = 'on the untouched base, for the proof'
  const onBase = await settings.runner.run(
    step.command,
    index ? { extraEnv: { GIT_INDEX_FILE: index }, about } : { about }
  )
  const reapplied = await settings.branch.reapply(
    applied.diff,
    applied.edits.map((e) => e.path),
    settings.dropSpecialFiles
  )
  // The command changed a planned file on the base too (its mode, its content): the change no
  // longer applies where it did, and the run refuses rather than guess which file is right.
  if (reapplied.exitCode !== 0)
    throw new SecurityViolationError(
      `Refused the change (the base check): \`${step.command}\` changed a planned file while it ran on the base, so the change could not be put back (${reapplied.stderr.trim().split('\n')[0]}). Validation must not change the files the plan edits (a formatter's fixes belong in the change) [rule unexpected-changes].`,
      { rule: 'unexpected-changes', stage: 'base-check', problems: [reapplied.stderr.trim()] }
    )
  const check: BaseCheck = {
    run: commandRun(onBase),
    failsOnBase: onBase.exit_code !== 0,
    sameFailure:
      onBase.exit_code !== 0 &&
      failureFingerprint(onBase.exit_code, onBase.full.stdout, onBase.full.stderr) === fingerprint
  }
  cache.set(step.command, check)
  return check
}

export function validationError(
  failed: PipelineFailure,
  results: ValidationResult[],
  attempt: number
): ValidationFailedError {
  const { outcome, base } = failed
  const preexisting = unrelatedOnly(failed)
  const targets = failed.verdict ? settle([failed.verdict]).targets : []
  const still = base?.failsOnBase && targets.length > 0
  const message =
    `Validation failed: "${outcome.command}" exited with ${outcome.exit_code} after ${attempt} attempt(s)` +
    (preexisting
      ? '; it fails the same way on the base branch and the issue does not name it, so the failure was already there.'
      : still
        ? `; the draft did not fix it: still failing: ${targets
            .slice(0, 5)
            .map((t) => t.id)
            .join(', ')}.`
        : '.')
  return new ValidationFailedError(message, {
    command: outcome.command,
    exit_code: outcome.exit_code,
    stderr: outcome.stderr,
    stdout: outcome.stdout,
    attempts: attempt,
    validation_results: results,
    ...(base ? { preexisting, same_failure_on_base: base.sameFailure } : {}),
    ...(failed.verdict ? { targets: targets.map((t) => t.id), verdict: failed.verdict } : {})
  })
}

/** The failure's fingerprint: a repair that brings the same one back stops the loop. */
export function fingerprintOf(failed: PipelineFailure): string {
  const { outcome } = failed
  return failureFingerprint(outcome.exit_code, outcome.full.stdout, outcome.full.stderr)
}
