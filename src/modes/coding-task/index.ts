import { runEngine, type AgentEnvironment, type AgentRun } from '../../engine/index.js'
import type { RunConfig } from '../../config.js'
import type { CodingTask, CommitResult } from '../../contract/index.js'
import { readStructured } from '../../inputs/index.js'
import { commitResult } from './commit-result.js'
import { codingTaskInput, readCodingTask } from './task-input.js'

export { commitResult, commitStatus } from './commit-result.js'

/**
 * Seed Coding-Agent on the engine: CodingTask in (`coding-task`), the same run, CommitResult out
 * (at the output path, in place of the Commit[] result). The message ends with `[agent:<id>]`
 * and the task's `License-Tag:`; failures are never commented on an issue.
 */
export async function runCodingTask(config: RunConfig, env: AgentEnvironment): Promise<AgentRun> {
  const source = config.codingTask!
  let task: CodingTask | undefined
  return runEngine({ ...config, commentOnFailure: false }, env, {
    loadInput: async ({ repoDir }) => {
      task = readCodingTask(source)
      return { input: await codingTaskInput(task, repoDir) }
    },
    commitMessage: (message) => taskMessage(message, task!),
    // The seed's CommitResult in place of the Commit[] result.
    result: (response): CommitResult => {
      const id = task?.id ?? rawId(source)
      return commitResult(id, id ? `agt/${id}` : '', response)
    }
  })
}

/** `type(scope): subject`, `[agent:<id>]`, then the trailers: `Fixes #N` (when the task has one), `License-Tag:`. */
export function taskMessage(message: string, task: CodingTask): string {
  const subject = message.replace(/\n\nFixes #\d+\s*$/, '')
  const trailers = [
    ...(task.issue_number ? [`Fixes #${task.issue_number}`] : []),
    ...(task.license_tag ? [`License-Tag: ${task.license_tag}`] : [])
  ]
  return [subject, `[agent:${task.id}]`, ...(trailers.length ? [trailers.join('\n')] : [])].join(
    '\n\n'
  )
}

/** The id of a task that did not validate, for the result, when it has a usable one. */
function rawId(source: string): string {
  try {
    const id = (readStructured(source, 'coding-task', process.cwd()) as { id?: unknown }).id
    return typeof id === 'string' && /^[\w.-]{1,100}$/.test(id) ? id : ''
  } catch {
    return ''
  }
}
