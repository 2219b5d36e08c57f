import {
  InvalidDiffError,
  ValidationFailedError,
  type CodeAgentInput,
  type FileChange,
  type StyleConfig
} from '../contract/index.js'
import { editFromUdiffReply, renderDiff, type FileEdit, type Placement } from '../edits/index.js'
import type { ChangeBranch } from '../git/index.js'
import { draftMessages, type ModelClient, type RepairContext } from '../model/index.js'
import type { PathPolicy } from '../policy/index.js'
import type { EditFormat } from '../config.js'
import { runPipeline, type CommandOutcome, type CommandRunnerOptions } from '../validation/index.js'
import { mapConcurrent } from './concurrency.js'
import type { Logger } from './logger.js'
import type { PhaseClock } from './phase-clock.js'

export interface AttemptSettings {
  input: CodeAgentInput
  format: EditFormat
  style: StyleConfig
  /** Contents of every planned file on the base branch (null: does not exist). */
  base: ReadonlyMap<string, string | null>
  commands: readonly string[]
  maxRepairs: number
  concurrency: number
  runner: CommandRunnerOptions
  model: ModelClient
  branch: ChangeBranch
  policy: PathPolicy
  clock: PhaseClock
  logger: Logger
}

export interface GreenChange {
  edits: FileEdit[]
  diff: string
  results: CommandOutcome[]
  attempts: number
  placements: Record<string, Placement[]>
}

const NO_CHANGES = /^\s*NO_CHANGES\s*$/

/**
 * Draft → apply → validate, and on a failed apply or validation, repair with the failure in
 * hand: at most 1 + maxRepairs attempts. Each attempt is applied from the base, so the work
 * tree never holds half of one attempt and half of another.
 */
export async function attemptChange(settings: AttemptSettings): Promise<GreenChange> {
  const { input, base, clock, logger } = settings
  const current = new Map(base)
  let repair: RepairContext | undefined
  let lastError: Error | undefined
  for (let attempt = 1; attempt <= settings.maxRepairs + 1; attempt++) {
    logger.info(
      attempt === 1 ? 'Drafting edits' : `Repair ${attempt - 1} of ${settings.maxRepairs}`
    )
    try {
      const drafted = await clock.time('draft', () => draftAll(settings, current, repair))
      const edits = [...drafted.values()].map(({ edit }) => edit)
      const diff = await clock.time('apply', () => applyEdits(settings, edits, attempt))
      for (const edit of edits) current.set(edit.path, edit.after)
      const pipeline = await clock.time('validate', () =>
        runPipeline(settings.commands, settings.runner)
      )
      if (!pipeline.failed) {
        const placements = Object.fromEntries([...drafted].map(([path, d]) => [path, d.placements]))
        return { edits, diff, results: pipeline.results, attempts: attempt, placements }
      }
      const failed = pipeline.failed
      logger.warn(`Validation failed: ${failed.command} exited ${failed.exit_code}`)
      lastError = new ValidationFailedError(
        `Validation failed: "${failed.command}" exited with ${failed.exit_code} after ${attempt} attempt(s).`,
        {
          command: failed.command,
          exit_code: failed.exit_code,
          stderr: failed.stderr,
          stdout: failed.stdout,
          attempts: attempt,
          validation_results: pipeline.results
        }
      )
      repair = {
        kind: `the validation command "${failed.command}" failed with exit code ${failed.exit_code}`,
        failure: `$ ${failed.command}\n${failed.stderr}\n${failed.stdout}`.trim(),
        otherFiles: {}
      }
    } catch (error) {
      if (!(error instanceof InvalidDiffError)) throw error
      logger.warn(`Edit refused: ${error.message}`)
      // A repair that cannot be applied says less than the validation failure it was meant to fix.
      lastError =
        lastError instanceof ValidationFailedError
          ? new ValidationFailedError(lastError.message, {
              ...lastError.details,
              repair_error: error.message
            })
          : new InvalidDiffError(error.message, { ...error.details, attempts: attempt })
      repair = { kind: 'the edit could not be applied', failure: error.message, otherFiles: {} }
    }
  }
  throw lastError ?? new InvalidDiffError('No attempt was made.')

  async function draftAll(
    s: AttemptSettings,
    latest: Map<string, string | null>,
    failure: RepairContext | undefined
  ): Promise<Map<string, ReturnType<typeof editFromUdiffReply>>> {
    const changes = input.fix_plan.file_changes
    const drafts = await mapConcurrent(changes, s.concurrency, async (change, _index, signal) => {
      const content = latest.get(change.path) ?? null
      if (change.operation === 'DELETE') return deletion(change, base.get(change.path) ?? null)
      const others = failure ? changedElsewhere(latest, change.path) : undefined
      const messages = draftMessages({
        format: s.format,
        issue: input.issue,
        change,
        planSteps: input.fix_plan.plan_steps,
        content,
        style: s.style,
        repair: failure && { ...failure, otherFiles: others ?? {} }
      })
      const reply = await s.model.complete(messages, signal)
      if (failure && NO_CHANGES.test(reply.text) && content !== base.get(change.path)) {
        return { edit: edit(change, content), placements: [] as Placement[] }
      }
      const drafted = editFromUdiffReply(reply.text, change, content)
      if (drafted.claimedPath)
        s.logger.warn(
          `Reply for ${change.path} named ${drafted.claimedPath}; applied to ${change.path}`
        )
      s.logger.debug(`${change.path}: hunks placed ${drafted.placements.join(', ')}`)
      return { edit: edit(change, drafted.edit.after), placements: drafted.placements }
    })
    return new Map(changes.map((change, i) => [change.path, drafts[i]!]))
  }

  function edit(change: FileChange, after: string | null): FileEdit {
    return {
      path: change.path,
      operation: change.operation,
      before: base.get(change.path) ?? null,
      after
    }
  }

  function changedElsewhere(
    latest: Map<string, string | null>,
    path: string
  ): Record<string, string | null> {
    const others: Record<string, string | null> = {}
    for (const [other, content] of latest)
      if (other !== path && content !== base.get(other)) others[other] = content
    return others
  }
}

function deletion(change: FileChange, before: string | null) {
  return {
    edit: { path: change.path, operation: change.operation, before, after: null },
    placements: [] as Placement[]
  }
}

async function applyEdits(
  settings: AttemptSettings,
  edits: FileEdit[],
  attempt: number
): Promise<string> {
  for (const edit of edits) {
    if (edit.after === edit.before) {
      throw new InvalidDiffError(
        `The edit leaves ${edit.path} unchanged; the plan asks for a change to it.`,
        {
          rule: 'no-change',
          path: edit.path
        }
      )
    }
  }
  const paths = edits.map((edit) => edit.path)
  settings.policy.assertAllowed(paths, 'edit')
  const diff = renderDiff(edits)
  if (attempt > 1) await settings.branch.reset()
  const applied = await settings.branch.apply(diff, paths)
  if (applied.exitCode !== 0) {
    throw new InvalidDiffError(`git apply --check refused the edit: ${applied.stderr.trim()}`, {
      rule: 'git-apply-check',
      stderr: applied.stderr.trim()
    })
  }
  return diff
}
