import type { CodeAgentOutput } from '../../contract/index.js'
import type { RunMode } from '../../engine/index.js'
import { cell, costLine, proofTable } from '../../report/index.js'
import { issuesTable, type IssueStatus } from './outcome.js'
import { BatchPlans } from './plans.js'

/**
 * Several issues in one run (`issues` setting) on the one engine: one branch, one validated
 * commit per issue in order, stopping at the first failure. Its pull request, also after a
 * failure that kept commits, lists every issue's outcome (done by an earlier run, committed
 * now, failed, not run), each of this run's commits with its proof, and `Fixes #N` for each issue
 * fixed on the branch.
 */
export const batchMode: RunMode = {
  plans: (ctx) => new BatchPlans(ctx),
  pullRequest: false,
  after: async ({ response }) => ({ response: withBatchPullRequest(response) })
}

function withBatchPullRequest(response: CodeAgentOutput): CodeAgentOutput {
  const commits = response.data ?? []
  const statuses = (response.metrics?.issues ??
    response.error?.details?.issues ??
    []) as IssueStatus[]
  // Fixed on the branch: by this run, or by an earlier one this run went on from.
  const committed = statuses.filter((s) => s.status === 'committed' || s.status === 'done')
  if (committed.length === 0) return response
  const body = [
    '### Issues',
    issuesTable(statuses),
    ...commits.flatMap((commit) => [
      `### #${commit.issue_number}: ${cell(commit.message.split('\n')[0] ?? '')}`,
      proofTable(commit)
    ]),
    `Cost: ${costLine(response.metrics)}`,
    committed.map((s) => `Fixes #${s.issue}`).join('\n')
  ].join('\n\n')
  const title = `Patchsmith: ${committed.map((s) => `#${s.issue}`).join(', ')}`
  return { ...response, pull_request: { title, body: `${body}\n` } }
}
