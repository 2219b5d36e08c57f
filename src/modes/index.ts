import { runEngine, type AgentEnvironment, type AgentRun } from '../engine/index.js'
import type { RunConfig, RunConfigInput } from '../config.js'
import { codeCommitSettings, runCodeCommit } from './code-commit/index.js'
import { runCodingTask } from './coding-task/index.js'
import { runFollowUp } from './follow-up/index.js'
import { batchMode } from './batch/index.js'
import { approvalRequest, approvedPlanMode } from './plan-approval/index.js'
import { taskFileMode } from './task-file/index.js'

/** How the action or the command line was asked to run: the CLI's command; the action `run`. */
type Command = 'run' | 'commit' | 'follow-up'

/**
 * The one place a way of running is chosen, for the action and the CLI alike: `commit` is seed
 * code-commit, `follow-up` a pull request, then by the settings: a CodingTask, a pull request to
 * follow up, a task file, else one plan. Each mode
 * declares its settings and seams before its run; what the run returns is what it wrote.
 */
export function runMode(
  command: Command,
  config: RunConfig,
  env: AgentEnvironment
): Promise<AgentRun> {
  if (command === 'commit') return runCodeCommit(config, env)
  if (command === 'follow-up') return runFollowUp(config, env)
  if (config.codingTask) return runCodingTask(config, env)
  if (config.followUp) return runFollowUp(config, env)
  // A task file runs its tasks batch after batch on the same engine (task-file/).
  if (config.taskFile) return runEngine(config, env, taskFileMode)
  if (config.issues) return runEngine(config, env, batchMode)
  // plan-approval: required: a writer's `/patchsmith approve <hash>` runs the plan it names, the
  // approval label the plan posted when it was added;
  // any other start gets its plan posted (the engine's approval step).
  const approval =
    config.planApproval === 'required'
      ? approvalRequest(env.vars.GITHUB_EVENT_NAME, env.eventPath, config.approvalLabel)
      : undefined
  if (approval) return runEngine(config, env, approvedPlanMode(approval, config, env))
  return runEngine(config, env)
}

/** The settings a mode declares over the user's before they are parsed (`commit`'s defaults). */
export function modeSettings(command: Command, settings: RunConfigInput): RunConfigInput {
  return command === 'commit' ? codeCommitSettings(settings) : settings
}
