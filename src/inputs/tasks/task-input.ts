import {
  fixPlanSchema,
  issueSchema,
  type CodeAgentInput,
  type Issue,
  type TriageResult
} from '../../contract/index.js'
import { TaskParseError, type Task } from './parse.js'

interface TaskContext {
  /** The issue the task file belongs to: its number goes into every commit. */
  issue: Issue
  triage: TriageResult
  /** The branch this task's commit is made for. */
  branch: string
  /** Whether a path exists in the work tree now (after the earlier tasks' commits). */
  exists: (path: string) => boolean
}

const MAX_TITLE = 200

/**
 * One task as the engine's input: the task is the issue (its description the title, its notes
 * and the parent issue the body) and its files the plan, each MODIFY when it exists, else CREATE.
 */
export function taskInput(task: Task, ctx: TaskContext): CodeAgentInput {
  if (task.paths.length === 0) {
    throw new TaskParseError(
      `${task.id} names no file to change; write the path in the task (e.g. "in src/x.ts").`,
      task.line,
      'no-file'
    )
  }
  const body = [
    `Task ${task.id}: ${task.description}`,
    ...task.notes.map((note) => `  ${note}`),
    '',
    `Part of issue #${ctx.issue.number}: ${ctx.issue.title}`,
    ctx.issue.body ?? ''
  ]
    .join('\n')
    .trim()
  const issue = issueSchema().parse({
    number: ctx.issue.number,
    title: clip(task.description, MAX_TITLE),
    body
  })
  const fixPlan = fixPlanSchema().parse({
    branch_name: ctx.branch,
    plan_steps: [task.description],
    file_changes: task.paths.map((path) => ({
      path,
      operation: ctx.exists(path) ? 'MODIFY' : 'CREATE',
      description: task.description
    })),
    validation_commands: []
  })
  return { issue, triage_result: ctx.triage, fix_plan: fixPlan }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}
