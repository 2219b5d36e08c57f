import {
  GitConflictError,
  ValidationFailedError,
  type Commit,
  type ValidationResult
} from '../contract/index.js'
import type { ChangeBranch } from '../change/index.js'
import { ValidationWatch, type PathPolicy } from '../policy/index.js'
import { runPipeline, type PipelineStep } from '../validation/index.js'
import { onOverlay, type CommandRunner } from './commands.js'
import { guardTree, keepMatcher, type RemovedAfterValidation } from './leftovers.js'
import type { Logger } from '../run/index.js'

/**
 * What validating the change again needs: the run's steps, in its sandbox, under its policy,
 * with the tree put back afterwards as after the attempts' validation.
 */
export interface Revalidation {
  steps: readonly PipelineStep[]
  runner: CommandRunner
  retryFlaky: boolean
  policy: PathPolicy
  /** The run's own folder (never validation's leftovers, where it lies in the tree). */
  log: { dir: string }
  validationKeep?: readonly string[]
  removed?: RemovedAfterValidation
  logger: Logger
}

// The base moving again while the moved change is validated: give up after this many moves.
const MAX_MOVES = 3

/**
 * Before the push: when origin's base branch moved past the commit the change was made on
 * (someone pushed during the run), the committed change is replayed onto origin's tip
 * (ChangeBranch.moveOnto: exactly the approved lines, or GIT_CONFLICT naming the paths) and
 * validated again there, in the sandbox, as the attempt was. Returns the commits as they will
 * be pushed; unchanged when the base did not move.
 */
export async function followMovedBase(
  branch: ChangeBranch,
  commits: Commit[],
  revalidation: Revalidation | undefined,
  logger: Logger
): Promise<Commit[]> {
  let moved = await branch.baseMovedOnOrigin()
  if (!moved) return commits
  const first = moved.from
  let landed = commits
  for (let move = 1; moved; move++) {
    if (move > MAX_MOVES)
      throw new GitConflictError(
        `origin's ${moved.branch} moved ${MAX_MOVES} times while the change was being moved onto it and validated again; nothing was pushed, rerun later.`,
        { rule: 'base-moved-conflict', branch: moved.branch, base_sha: moved.onto, paths: [] }
      )
    logger.info(
      `origin's ${moved.branch} moved during the run (${moved.from.slice(0, 12)} -> ${moved.onto.slice(0, 12)}): moving the approved change onto it and validating it again`
    )
    const made = await branch.moveOnto(moved)
    const results = revalidation
      ? await revalidate(revalidation, branch, moved.onto, failedBefore(commits))
      : undefined
    landed = landed.map((commit, i) => ({
      ...commit,
      sha: made[i]?.sha ?? commit.sha,
      diff: made[i]?.diff ?? commit.diff,
      patch_id: made[i]?.patchId ?? commit.patch_id,
      validation_results: results ?? commit.validation_results,
      base_sha: moved!.onto,
      moved_from_base: first
    }))
    moved = await branch.baseMovedOnOrigin()
  }
  return landed
}

/**
 * The moved change's validation: every command that passed on the change before, without fix
 * commands (nothing may rewrite the moved change), watched as the attempt's validation is. A
 * command that fails now is VALIDATION_FAILED of the moved change; there is no repair.
 */
async function revalidate(
  settings: Revalidation,
  branch: ChangeBranch,
  onto: string,
  skip: ReadonlySet<string>
): Promise<ValidationResult[]> {
  const { runner } = settings
  const steps = settings.steps
    .filter(({ command }) => !skip.has(command))
    .map(({ step, command }) => ({ step, command }))
  if (steps.length === 0) return []
  // Nothing may change the moved commit: no path is carried or kept as the change's.
  const guard = await guardTree({ ...settings, branch }, [])
  try {
    const watch = await ValidationWatch.start(runner.cwd, branch.git, settings.policy, {
      ownFolder: settings.log.dir,
      touched: guard.overlay?.record,
      keep: keepMatcher(settings.validationKeep),
      scope: guard.scope
    })
    const jailed = guard.overlay ? onOverlay(runner, guard.overlay) : runner
    const pipeline = await runPipeline(steps, {
      run: (command) => jailed.run(command),
      signal: runner.signal,
      retryFlaky: settings.retryFlaky,
      keepPreexisting: false
    })
    // Validation may not have changed git or staged anything: the moved commit is what is pushed.
    await watch.assertClean([])
    await guard.putBack([])
    if (pipeline.failed) {
      await watch.removeCreatedFiles()
      throw movedChangeFailed(pipeline.failed.outcome, branch.base, onto, pipeline.results)
    }
    await watch.settleWorkTree()
    return pipeline.results
  } finally {
    // A refusal or a cancellation: what the runs left goes all the same.
    await guard.putBack([])
    guard.overlay?.dispose()
  }
}

function movedChangeFailed(
  outcome: { command: string; exit_code: number; stdout: string; stderr: string },
  base: string,
  onto: string,
  results: ValidationResult[]
): ValidationFailedError {
  return new ValidationFailedError(
    `Validation failed on the change moved onto ${base} as it is on origin now (${onto.slice(0, 12)}): "${outcome.command}" exited with ${outcome.exit_code}. Nothing was pushed; the change passed on the base it was made on, so what was pushed to ${base} meanwhile breaks it: rerun on the new ${base}.`,
    {
      command: outcome.command,
      exit_code: outcome.exit_code,
      stderr: outcome.stderr,
      stdout: outcome.stdout,
      rebased: true,
      base_sha: onto,
      validation_results: results
    }
  )
}

/** Commands the change was committed with failing as on the base (on-preexisting-failure: commit). */
function failedBefore(commits: readonly Commit[]): Set<string> {
  const results = commits[0]?.validation_results ?? []
  return new Set(results.filter((r) => r.exit_code !== 0).map((r) => r.command))
}
