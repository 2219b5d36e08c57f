import type { CodeAgentInput, PlannedReproduction } from '../contract/index.js'
import type { Git } from '../git/index.js'
import {
  FRAMEWORK_NAMES,
  packageScripts,
  reproductionLocation,
  testFramework,
  type PipelineStep
} from '../validation/index.js'
import type { ReproductionSettings } from './attempt-settings.js'
import { untestableInput } from './reproduction.js'

/**
 * The reproduction a run of this plan would ask for, told before any model call (a plan shown
 * for approval): the test file's path and the command that runs it, found as reproduce() finds
 * them on the base; or why there would be none. The model may still answer that nothing a test
 * can show is reported, and an issue that names a failing test is its own reproduction.
 */
export async function plannedReproduction(
  git: Git,
  baseCommit: string,
  steps: readonly PipelineStep[],
  input: CodeAgentInput,
  mode: ReproductionSettings['mode']
): Promise<PlannedReproduction> {
  if (mode === 'off') return { none: 'reproduction is off' }
  const untestable = untestableInput(input)
  if (untestable) return { none: untestable }
  const packageJson = await git.exec(['cat-file', 'blob', `${baseCommit}:package.json`], {
    allowFailure: true
  })
  const scripts = packageScripts(packageJson.exitCode === 0 ? packageJson.stdout : null)
  for (const step of steps) {
    if (step.step !== 'test' && step.step !== 'command') continue
    const framework = testFramework(step.command, scripts)
    if (!framework) continue
    const tracked = (await git.exec(['ls-tree', '-r', '-z', '--name-only', baseCommit])).stdout
      .split('\0')
      .filter(Boolean)
    const planned = input.fix_plan.file_changes.map((change) => change.path)
    const { path, command } = reproductionLocation(
      framework,
      tracked,
      planned,
      input.issue.number,
      step.command
    )
    return { path, framework: FRAMEWORK_NAMES[framework], command: command ?? step.command }
  }
  return {
    none: 'no validation command runs a test framework Patchsmith can write a reproduction in'
  }
}
