import type {
  CodeAgentOutput,
  CommitResult,
  CommitStatus,
  ErrorCode
} from '../../contract/index.js'

/**
 * SOFT_FAIL: worth scheduling again as it is (the model, validation, time, a moved base).
 * HARD_FAIL: needs a person or a new task (bad input, security, permissions, budget, a patch
 * that never applied — the seed's "patch rejects" and "exceeded token budget").
 */
const SOFT: ReadonlySet<ErrorCode> = new Set([
  'VALIDATION_FAILED',
  'MODEL_ERROR',
  'TIMEOUT',
  'GIT_CONFLICT'
])

export function commitStatus(response: CodeAgentOutput): CommitStatus {
  if (response.success) return 'SUCCESS'
  return response.error && SOFT.has(response.error.code) ? 'SOFT_FAIL' : 'HARD_FAIL'
}

/** The engine's AgentResponse<Commit[]> as the seed's CommitResult. */
export function commitResult(
  taskId: string,
  branch: string,
  response: CodeAgentOutput
): CommitResult {
  const metrics = (response.metrics ?? {}) as {
    attempts?: number
    tokens?: { total?: number }
    stop_reason?: string
    minimal_fix?: { changed_lines: number }
  }
  const commits = response.data ?? []
  const notes: string[] = []
  const error = response.error
  if (error) {
    notes.push(`${error.code}: ${error.message}`)
    const details = error.details ?? {}
    if (typeof details.command === 'string')
      notes.push(`failing command: ${details.command} (exit ${String(details.exit_code)})`)
    if (typeof details.stderr === 'string' && details.stderr.trim())
      notes.push(`stderr: ${details.stderr.trim().slice(-2_000)}`)
    if (typeof details.rule === 'string') notes.push(`rule: ${details.rule}`)
  }
  for (const commit of commits) {
    notes.push(`commit: ${commit.message.split('\n')[0]}`)
    for (const result of commit.validation_results)
      notes.push(`validated: ${result.command} (exit ${result.exit_code})`)
  }
  if (metrics.stop_reason && !response.success) notes.push(`stopped: ${metrics.stop_reason}`)
  if (metrics.minimal_fix) notes.push(`changed lines: ${metrics.minimal_fix.changed_lines}`)
  return {
    task_id: taskId,
    commit_sha: commits.at(-1)?.sha ?? '',
    branch_name: branch,
    status: commitStatus(response),
    notes,
    retries: Math.max(0, (metrics.attempts ?? 1) - 1),
    llm_tokens_used: metrics.tokens?.total ?? 0
  }
}
