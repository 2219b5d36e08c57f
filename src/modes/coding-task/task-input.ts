import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  codingTaskSchema,
  GitConflictError,
  type CodeAgentInput,
  type CodingTask
} from '../../contract/index.js'
import { headCommit } from '../../engine/index.js'
import { readStructured, validate } from '../../inputs/index.js'
import { fence } from '../../model/index.js'

/** Stands in for the issue a CodingTask does not have: never commented on, never in a message. */
const NO_ISSUE = 1

export function readCodingTask(source: string): CodingTask {
  return validate(
    codingTaskSchema(),
    readStructured(source, 'coding-task', process.cwd()),
    'coding_task'
  )
}

/**
 * The task as the engine's input: the goal is the issue, each path a planned change (MODIFY when
 * it exists, else CREATE), the skeleton patch context for the drafts, the branch `agt/<id>`, and
 * `feature` as triage so the commit is a `feat`, as the seed's commit is.
 */
export async function codingTaskInput(task: CodingTask, repoDir: string): Promise<CodeAgentInput> {
  if (task.base_commit_sha) await assertBase(task.base_commit_sha, repoDir)
  const title = task.goal.split('\n')[0]!.slice(0, 200)
  const skeleton = task.skeleton_patch ?? []
  const body = [
    task.goal,
    `Files to touch: ${task.paths.join(', ')}`,
    ...skeleton.map((patch) => `Existing skeleton patch (may edit):\n${fence(patch, 'diff')}`)
  ].join('\n\n')
  return {
    issue: { number: task.issue_number ?? NO_ISSUE, title, body },
    triage_result: { classification: 'feature' },
    fix_plan: {
      branch_name: `agt/${task.id}`,
      plan_steps: [
        task.goal,
        ...(skeleton.length > 0
          ? ['Start from the skeleton patch in the task; edit it as needed.']
          : [])
      ],
      file_changes: [...new Set(task.paths)].map((path) => ({
        path,
        operation: existsSync(join(repoDir, path)) ? 'MODIFY' : 'CREATE',
        description: task.goal.slice(0, 10_000)
      })),
      validation_commands: []
    }
  }
}

/** The task was planned on base_commit_sha: the checkout must be that commit. */
async function assertBase(sha: string, repoDir: string): Promise<void> {
  const head = await headCommit(repoDir)
  if (!head.startsWith(sha)) {
    throw new GitConflictError(
      `The task was planned on ${sha}, but the checkout is at ${head}: check out the task's base_commit_sha or re-plan the task.`,
      { rule: 'base-commit-mismatch', base_commit_sha: sha, head }
    )
  }
}
