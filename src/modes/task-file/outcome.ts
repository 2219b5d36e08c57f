import type { AgentError, CodeAgentInput, CodeAgentOutput, Commit } from '../../contract/index.js'
import type { LoadedTasks, Task } from '../../inputs/tasks/index.js'

/* How a task file's run reports its tasks: one status each, and the run's outcome from them. */

export interface TaskStatus {
  id: string
  line: number
  description: string
  status: 'committed' | 'failed' | 'skipped' | 'done'
  sha?: string
  attempts?: number
  error?: { code: string; message: string }
  /** For a skipped task: the dependency that failed or was skipped. */
  blocked_by?: string
}

export function statusOf(task: Task, status: TaskStatus['status']): TaskStatus {
  return { id: task.id, line: task.line, description: task.description, status }
}

/** Success when every pending task committed; otherwise the first failure, with the commits made. */
export function outcome(
  statuses: TaskStatus[],
  commits: Commit[],
  branch: string
): CodeAgentOutput {
  const failed = statuses.filter((task) => task.status === 'failed')
  const skipped = statuses.filter((task) => task.status === 'skipped')
  if (failed.length === 0 && skipped.length === 0) return { success: true, data: commits }
  const first = failed[0]
  const committed = statuses.filter((task) => task.status === 'committed').length
  const error: AgentError = {
    code: (first?.error?.code ?? 'VALIDATION_FAILED') as AgentError['code'],
    message:
      `${failed.map((t) => t.id).join(', ')} failed` +
      (skipped.length ? `, ${skipped.map((t) => t.id).join(', ')} skipped` : '') +
      `; ${committed} task(s) committed on ${branch}.` +
      (first?.error ? ` ${first.id}: ${first.error.message}` : ''),
    details: { tasks: statuses, failed: failed.map((t) => t.id) },
    recoverable: true
  }
  return { success: false, data: commits, error }
}

export function parentInput(loaded: LoadedTasks, branch: string): CodeAgentInput {
  return {
    issue: loaded.issue,
    triage_result: loaded.triage,
    fix_plan: {
      branch_name: branch || 'tasks',
      plan_steps: [],
      file_changes: [],
      validation_commands: []
    }
  }
}
