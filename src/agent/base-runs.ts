import { InvalidDiffError } from '../contract/index.js'
import { renderDiff, type FileEdit } from '../edits/index.js'
import { asStoredByGit } from '../git/index.js'
import { guardEdits, ValidationWatch } from '../policy/index.js'
import { commandRun, type CommandRun, type PipelineStep } from '../validation/index.js'
import type { AttemptSettings } from './attempt-settings.js'
import { onOverlay } from './commands.js'
import { guardTree, keepMatcher } from './leftovers.js'

/**
 * The test commands on the base, with `edits` (a reproduction test) in place or none: in the
 * sandbox, watched as validation is (what they may not change refuses the run), and the work
 * tree back at the base afterwards, what they created removed (ignored files too).
 */
export async function runOnBase(
  settings: AttemptSettings,
  steps: readonly PipelineStep[],
  edits: readonly FileEdit[]
): Promise<Array<{ command: string; run: CommandRun }>> {
  const { branch, policy } = settings
  const cwd = settings.runner.cwd
  // Listed before the planned files are placed: the user's alone.
  const untracked = await branch.untrackedAtStart()
  const stored = edits.length > 0 ? await placeOnBase(settings, edits) : []
  const guard = await guardTree(
    settings,
    stored.map((edit) => edit.path)
  )
  const overlay = guard.overlay
  try {
    const watch = await ValidationWatch.start(cwd, branch.git, policy, {
      untracked: stored.length === 0 ? untracked : undefined,
      ownFolder: settings.log.dir,
      touched: overlay?.record,
      keep: keepMatcher(settings.validationKeep),
      scope: guard.scope
    })
    const runner = overlay ? onOverlay(settings.runner, overlay) : settings.runner
    const runs: Array<{ command: string; run: CommandRun }> = []
    for (const step of steps) {
      const outcome = await runner.run(step.command)
      settings.budget?.assertNotCancelled('while running the tests on the base')
      runs.push({ command: step.command, run: commandRun(outcome) })
    }
    await watch.assertClean(stored)
    await guard.putBack()
    await watch.removeCreatedFiles()
    return runs
  } finally {
    // A refusal or a cancellation: what the runs left goes all the same.
    await guard.putBack()
    overlay?.dispose()
    if (stored.length > 0) await branch.reset()
  }
}

/** The new files through the path policy and `git apply`, as any edit. */
async function placeOnBase(
  settings: AttemptSettings,
  edits: readonly FileEdit[]
): Promise<FileEdit[]> {
  const planned = [
    ...settings.input.fix_plan.file_changes,
    ...edits.map((edit) => ({ path: edit.path, operation: edit.operation }))
  ]
  await guardEdits([...edits], settings.policy, settings.runner.cwd, settings.branch.git, {
    planned,
    masker: settings.masker,
    unicodeTextPaths: settings.unicodeTextPaths
  })
  const stored = await asStoredByGit(settings.branch.git, [...edits])
  await settings.branch.reset()
  const result = await settings.branch.apply(
    renderDiff(stored),
    stored.map((edit) => edit.path)
  )
  if (result.exitCode !== 0)
    throw new InvalidDiffError(`git apply --check refused the test: ${result.stderr.trim()}`, {
      rule: 'git-apply-check'
    })
  return stored
}
