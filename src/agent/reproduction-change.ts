import type { FileChange } from '../contract/index.js'
import { renderDiff } from '../edits/index.js'
import { assertExactChanges } from '../policy/index.js'
import type { ProvenBy } from '../validation/index.js'
import type { AttemptSettings } from './attempt-settings.js'
import type { Reproduction } from './reproduction.js'
import type { Applied } from './validation-round.js'

/**
 * The attempts' view of a reproduction: its file planned as a CREATE (the policy and the
 * commit see it as any planned file) and given to every draft as written, never drafted; the
 * validation command it stands for replaced, in the run's steps, by the one that runs it (the
 * command with the test's path added, when the command names files only).
 */
export function withReproduction(
  settings: AttemptSettings,
  reproduction: Reproduction
): AttemptSettings {
  if (reproduction.kind !== 'reproduced') return settings
  const { edit, failure, command, replaces } = reproduction
  if (command !== replaces)
    settings.steps = settings.steps.map((step) =>
      step.command === replaces ? { ...step, command } : step
    )
  const plan = settings.input.fix_plan
  const change: FileChange = {
    path: edit.path,
    operation: 'CREATE',
    description: 'The test that reproduces the issue, written before the fix'
  }
  if (!plan.file_changes.some((c) => c.path === edit.path)) plan.file_changes.push(change)
  return { ...settings, reproduction: undefined, written: { edit, failure } }
}

/** `reproduction: evidence`: the validated change without its test, applied and checked again. */
export async function withoutTest(
  settings: AttemptSettings,
  applied: Applied,
  path: string
): Promise<Applied> {
  const plan = settings.input.fix_plan
  plan.file_changes = plan.file_changes.filter((change) => change.path !== path)
  const edits = applied.edits.filter((edit) => edit.path !== path)
  const diff = renderDiff(edits)
  await settings.branch.reset()
  const result = await settings.branch.apply(
    diff,
    edits.map((edit) => edit.path)
  )
  if (result.exitCode !== 0)
    throw new Error(`Could not apply the fix without its test: ${result.stderr}`)
  return { edits, diff, staged: await assertExactChanges(settings.branch.git, edits, 'apply') }
}

export function provenBy(reproduction: Reproduction): ProvenBy {
  if (reproduction.kind !== 'reproduced') return reproduction
  const { edit, command, tests, committed } = reproduction
  return {
    kind: 'reproduced',
    path: edit.path,
    command,
    tests,
    committed,
    content: edit.after ?? ''
  }
}
