import type { AgentError, CodeAgentOutput, Commit } from '../../contract/index.js'
import { cell, table } from '../../report/index.js'

/** One issue of a batch and how it ended. */
export interface IssueStatus {
  issue: number
  status: 'committed' | 'done' | 'failed' | 'not-run'
  /** Its commit (done: the one an earlier run made on the branch). */
  sha?: string
  title?: string
  attempts?: number
  error?: { code: string; message: string }
}

/** Success when every issue is committed (now or by an earlier run); else the first failure. */
export function batchOutcome(
  statuses: IssueStatus[],
  commits: Commit[],
  branch: string
): CodeAgentOutput {
  const failed = statuses.find((s) => s.status === 'failed')
  if (!failed) return { success: true, data: commits }
  const kept = statuses.filter((s) => s.status === 'committed' || s.status === 'done')
  const left = statuses.filter((s) => s.status === 'not-run').map((s) => `#${s.issue}`)
  const error: AgentError = {
    code: (failed.error?.code ?? 'VALIDATION_FAILED') as AgentError['code'],
    message:
      `Issue #${failed.issue} failed; ${kept.length} issue(s) before it stay committed on ${branch}` +
      (left.length > 0 ? `, ${left.join(', ')} not run` : '') +
      `. #${failed.issue}: ${failed.error?.message ?? ''}`,
    details: { issues: statuses, failed_issue: failed.issue },
    recoverable: true
  }
  return { success: false, data: commits, error }
}

const SHOWN: Record<IssueStatus['status'], string> = {
  committed: '✅ committed',
  done: '✅ committed by an earlier run',
  failed: '❌ failed',
  'not-run': '⏸️ not run'
}

/** The batch's issues as a table for the pull-request body (texts made inert). */
export function issuesTable(statuses: IssueStatus[]): string {
  return table(
    ['Issue', 'Outcome', 'Commit', 'Why'],
    statuses.map((s) => [
      `#${s.issue}`,
      SHOWN[s.status],
      s.sha ? `\`${s.sha.slice(0, 12)}\`` : '—',
      s.error ? cell(`${s.error.code}: ${s.error.message}`.slice(0, 300)) : ''
    ])
  )
}
