import {
  InvalidDiffError,
  ValidationFailedError,
  type ValidationResult
} from '../contract/index.js'
import { renderDiff, type FileEdit, type Placement } from '../edits/index.js'
import { WorktreeFiles, asStoredByGit } from '../git/index.js'
import { refusedEditRepair, validationRepair, type RepairContext } from '../model/index.js'
import { assertExactChanges, guardEdits, ValidationWatch } from '../policy/index.js'
import {
  issueContext,
  noRepairReason,
  unrelatedOnly,
  type BaseCheck,
  type ProvenBy,
  type CommandOutcome,
  type CommandVerdict
} from '../validation/index.js'
import { onOverlay } from './commands.js'
import { guardTree, keepMatcher } from './leftovers.js'
import type { AttemptSettings } from './attempt-settings.js'
import { reproduce } from './reproduction.js'
import { provenBy, withoutTest, withReproduction } from './reproduction-change.js'
import { draftEdits, type Drafted } from './drafting.js'
import { resumedEdits } from './last-attempt.js'
import { fingerprintOf, validateRound, validationError, type Applied } from './validation-round.js'

export interface AttemptStats {
  attempts: number
  repairs: number
  retries: { invalid_diff: number; validation: number; flaky_reruns: number; auto_fixes: number }
  stop_reason: 'validated' | 'repairs-exhausted' | 'same-failure' | 'no-change' | 'preexisting'
}

export interface GreenChange {
  edits: FileEdit[]
  diff: string
  /** The index's patch against HEAD as last checked: the commit's patch (one commit, no hooks). */
  staged: string
  results: ValidationResult[]
  attempts: number
  placements: Record<string, Placement[]>
  /** Each validation command held against the base: the commit's proof. */
  verdicts: CommandVerdict[]
  /** What the fix was proven with: a reproduction, tests the issue names, or why neither. */
  proven: ProvenBy
}

/**
 * How the attempts ended: a validated change, or the failure the loop stopped on. Either way
 * the statistics come with it; what is not a stop (a refused reply, the model, the budget, a
 * cancellation) is thrown.
 */
type AttemptOutcome =
  | { ok: true; change: GreenChange; stats: AttemptStats }
  | { ok: false; error: ValidationFailedError | InvalidDiffError; stats: AttemptStats }

/**
 * Draft → apply → validate, and on a failed apply or validation, repair with the failure in
 * hand: at most 1 + maxRepairs attempts. Each attempt is applied from the base, so the work
 * tree never holds half of one attempt and half of another. The loop stops early when a
 * repair brings the same failure back or changes nothing. A failing command is also run on the
 * base, so the result tells a failure that was already there from one the change introduced.
 */
export async function attemptChange(settings: AttemptSettings): Promise<AttemptOutcome> {
  const { clock, logger } = settings
  const current = new Map(settings.base)
  const baseChecks = new Map<string, BaseCheck>()
  const stats: AttemptStats = {
    attempts: 0,
    repairs: 0,
    retries: { invalid_diff: 0, validation: 0, flaky_reruns: 0, auto_fixes: 0 },
    stop_reason: 'repairs-exhausted'
  }
  let applied: Applied | undefined
  let repair: RepairContext | undefined
  let lastError: ValidationFailedError | InvalidDiffError | undefined
  let lastFingerprint: string | undefined
  const stop = (reason: AttemptStats['stop_reason'], why: string): AttemptOutcome => {
    stats.stop_reason = reason
    return { ok: false, error: stopped(lastError, reason, why), stats }
  }
  const reproduction = await clock.time('reproduce', () => reproduce(settings, baseChecks))
  if (reproduction.kind === 'none' && settings.reproduction?.required) {
    throw new ValidationFailedError(
      `No reproduction: ${reproduction.reason}. require-reproduction is set, so nothing was drafted or committed.`,
      { rule: 'reproduction-required', reason: reproduction.reason }
    )
  }
  const drafting = withReproduction(settings, reproduction)
  const issue = issueContext(settings.input)
  if (reproduction.kind === 'reproduced') issue.text += `\n${reproduction.tests.join('\n')}`

  for (let attempt = 1; attempt <= settings.maxRepairs + 1; attempt++) {
    let guard: Awaited<ReturnType<typeof guardTree>> | undefined
    // model (issue 7): TIMEOUT / TOKEN_BUDGET_EXCEEDED when spent; a reason when max-attempts stops
    const refusal = settings.budget?.beforeAttempt(attempt, lastError?.code)
    if (refusal) return stop('repairs-exhausted', refusal)
    stats.attempts = attempt
    stats.repairs = attempt - 1
    logger.info(
      attempt === 1 ? 'Drafting edits' : `Repair ${attempt - 1} of ${settings.maxRepairs}`
    )
    try {
      const drafted =
        (attempt === 1 && resumed(settings)) ||
        (await clock.time('draft', () => draftEdits(drafting, attempt, current, repair), attempt))
      if (attempt > 1 && drafted.edits.every((edit) => edit.after === current.get(edit.path)))
        return stop('no-change', 'the repair changed nothing')
      applied = await clock.time('apply', () => applyEdits(settings, drafted.edits))
      settings.progress?.applied(attempt, applied.diff, applied.edits)
      for (const edit of drafted.edits) current.set(edit.path, edit.after)
      // Only validation runs repository code; with no commands there is nothing to watch. On an
      // overlay (where the sandbox has one) the watch learns what validation touched from it.
      const cwd = settings.runner.cwd
      const watched = settings.steps.length > 0
      // Whatever the round leaves that is not the change goes, however it ends (finally below).
      if (watched)
        guard = await guardTree(
          settings,
          applied.edits.map((edit) => edit.path)
        )
      const overlay = guard?.overlay
      const watch = watched
        ? await ValidationWatch.start(cwd, settings.branch.git, settings.policy, {
            untracked: await settings.branch.untrackedAtStart(),
            ownFolder: settings.log.dir,
            touched: overlay?.record,
            keep: keepMatcher(settings.validationKeep),
            scope: guard?.scope
          })
        : undefined
      const runner = overlay ? onOverlay(settings.runner, overlay) : settings.runner
      const pipeline = await clock.time('validate', () =>
        validateRound(
          { ...settings, runner, issue, dropSpecialFiles: guard?.dropSpecialFiles },
          () => applied!,
          baseChecks,
          async () => {
            applied = await keepFixesInPlan(settings, applied!, current)
            settings.progress?.applied(attempt, applied.diff, applied.edits)
          }
        )
      )
      settings.progress?.validated(pipeline.results, !pipeline.failed)
      settings.budget?.assertNotCancelled('while validating')
      if (watch) applied = { ...applied, staged: await watch.assertClean(applied.edits) }
      countRuns(stats, pipeline.results)
      settings.log.build(attempt, pipeline.runs.map(logged))
      if (!pipeline.failed) {
        await guard?.putBack(applied.edits.map((edit) => edit.path))
        await watch?.settleWorkTree()
        if (reproduction.kind === 'reproduced' && !reproduction.committed)
          applied = await withoutTest(settings, applied, reproduction.edit.path)
        // Checked after the last command (assertClean, or applyEdits without commands).
        settings.branch.noteIndexChecked()
        stats.stop_reason = 'validated'
        const change = {
          ...applied,
          results: pipeline.results,
          attempts: attempt,
          verdicts: pipeline.verdicts,
          proven: provenBy(reproduction)
        }
        return { ok: true, change: { ...change, placements: drafted.placements }, stats }
      }
      await guard?.putBack(applied.edits.map((edit) => edit.path))
      await watch?.removeCreatedFiles()
      lastError = validationError(pipeline.failed, pipeline.results, attempt)
      logger.warn(lastError.message)
      // Only failures the base has the same way and the issue does not name: no repair for them.
      if (unrelatedOnly(pipeline.failed))
        return stop('preexisting', noRepairReason(pipeline.verdicts))
      const fingerprint = fingerprintOf(pipeline.failed)
      if (fingerprint === lastFingerprint)
        return stop('same-failure', 'the repair brought back the same failure')
      lastFingerprint = fingerprint
      stats.retries.validation++
      repair = validationRepair(pipeline.failed)
    } catch (error) {
      if (!(error instanceof InvalidDiffError)) throw error
      logger.warn(`Edit refused: ${error.message}`)
      settings.log.build(attempt, [], `The edit was refused before validation:\n${error.message}\n`)
      stats.retries.invalid_diff++
      // A repair that cannot be applied says less than the validation failure it was meant to fix.
      lastError =
        lastError instanceof ValidationFailedError
          ? new ValidationFailedError(lastError.message, {
              ...lastError.details,
              repair_error: error.message
            })
          : new InvalidDiffError(error.message, { ...error.details, attempts: attempt })
      repair = refusedEditRepair(error.message)
    } finally {
      // A refusal, a cancellation or a time-out: the tree is put back all the same.
      await guard?.putBack(applied?.edits.map((edit) => edit.path))
      guard?.overlay?.dispose()
    }
  }
  return { ok: false, error: lastError ?? new InvalidDiffError('No attempt was made.'), stats }
}

/**
 * The earlier run's last attempt as this run's first edits; undefined (so the model drafts)
 * when it no longer lands on the base. A diff that asks for what no edit may do is refused.
 */
function resumed(settings: AttemptSettings): Drafted | undefined {
  const point = settings.resume
  if (!point) return undefined
  try {
    const edits = resumedEdits(point, settings.input, settings.base, settings.policy)
    settings.logger.info(
      `Resuming from attempt ${point.attempt} of the earlier run (${point.files.join(', ')}); validating it before any repair`
    )
    return { edits, placements: {} }
  } catch (error) {
    if (!(error instanceof InvalidDiffError)) throw error
    settings.logger.warn(
      `The earlier run's last attempt does not apply to the base any more (${error.message}); drafting anew`
    )
    return undefined
  }
}

async function applyEdits(settings: AttemptSettings, edits: FileEdit[]): Promise<Applied> {
  if (edits.length === 0)
    throw new InvalidDiffError('The replies change no file; the plan asks for a change.', {
      rule: 'no-change'
    })
  for (const edit of edits) {
    if (edit.after === edit.before) {
      throw new InvalidDiffError(
        `The edit leaves ${edit.path} unchanged; the plan asks for a change to it.`,
        { rule: 'no-change', path: edit.path }
      )
    }
  }
  const paths = edits.map((edit) => edit.path)
  await guardEdits(edits, settings.policy, settings.runner.cwd, settings.branch.git, {
    planned: settings.input.fix_plan.file_changes,
    masker: settings.masker,
    unicodeTextPaths: settings.unicodeTextPaths
  })
  // The patch and the approved contents as git stores them (LF where the work tree has CRLF).
  const stored = await asStoredByGit(settings.branch.git, edits)
  const diff = renderDiff(stored)
  await settings.branch.reset()
  const result = await settings.branch.apply(diff, paths)
  if (result.exitCode !== 0) {
    throw new InvalidDiffError(`git apply --check refused the edit: ${result.stderr.trim()}`, {
      rule: 'git-apply-check',
      stderr: result.stderr.trim()
    })
  }
  // With validation commands the watch checks the index after they ran, before any commit
  // (assertClean): a check here as well would only cost a pass over the index.
  const staged =
    settings.steps.length > 0 ? '' : await assertExactChanges(settings.branch.git, stored, 'apply')
  return { edits: stored, diff, staged }
}

/**
 * A fix command (prettier --write, eslint --fix) may touch any file: what it did to the
 * planned files becomes part of the change, everything else is undone.
 */
async function keepFixesInPlan(
  settings: AttemptSettings,
  applied: Applied,
  current: Map<string, string | null>
): Promise<Applied> {
  const files = new WorktreeFiles(settings.runner.cwd)
  const edits = applied.edits.map((edit) => ({ ...edit, after: files.read(edit.path) }))
  const next = await applyEdits(settings, edits)
  for (const edit of edits) current.set(edit.path, edit.after)
  return next
}

function stopped(
  error: ValidationFailedError | InvalidDiffError | undefined,
  reason: AttemptStats['stop_reason'],
  why: string
): ValidationFailedError | InvalidDiffError {
  const message = `${error?.message ?? 'Validation failed.'} Stopped early: ${why}.`
  const details = { ...(error?.details ?? {}), stop_reason: reason }
  return error instanceof InvalidDiffError
    ? new InvalidDiffError(message, details)
    : new ValidationFailedError(message, details)
}

function countRuns(stats: AttemptStats, results: ValidationResult[]): void {
  stats.retries.flaky_reruns += results.filter((r) => r.flaky).length
  stats.retries.auto_fixes += results.filter((r) => r.auto_fixed).length
}

function logged(outcome: CommandOutcome) {
  const { command, exit_code, duration_ms, full } = outcome
  return { command, exit_code, duration_ms, stdout: full.stdout, stderr: full.stderr }
}
