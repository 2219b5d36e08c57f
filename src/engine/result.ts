import { outcomeOf, type CodeAgentOutput } from '../contract/index.js'
import { pullRequestText, writeResultFile } from '../report/index.js'
import { runUrl } from '../run/index.js'
import type { AgentRun } from './entry.js'
import type { ResultSeams } from './mode-seams.js'
import { recordReplay, type ReplayFacts } from './replay-record.js'
import type { RunSession } from './session.js'

/** What the engine names once the run is over: its branch and issue, for the result and the entry. */
interface RunNames {
  branch: string
  issueNumber?: number
  /** The issue's title: the pull request's "why" when the plan gives no other. */
  issueTitle?: string
  /** The plan's steps, for the pull-request body. */
  planSteps?: readonly unknown[]
}

/**
 * The end of every run: the metrics every run has after the run's own, what the mode does after
 * the run, the session closed, the result shaped by the mode, masked with the run's one masker
 * and written: once.
 */
export async function finishRun(
  session: RunSession,
  response: CodeAgentOutput,
  own: Record<string, unknown>,
  after: Record<string, unknown>,
  { issueTitle, planSteps, ...names }: RunNames,
  mode: ResultSeams,
  replay?: ReplayFacts
): Promise<AgentRun> {
  const { outputPath, logDir, repoDir, mask } = session
  response.metrics = { ...own, ...session.metrics(), ...after }
  // What the run spent, over its reservation, before anything else can fail.
  const rollingBudget = await session.settleBudget()
  if (rollingBudget) response.rolling_budget = rollingBudget
  response.outcome ??= outcomeOf(response)
  let masked = maskedWith(mask, response)
  let branch = names.branch
  const replayFile =
    replay && (await recordReplay(session, { outputPath, logDir, repoDir }, replay, response, mask))
  try {
    if (mode.after) {
      const after = await mode.after({ response: masked, mask })
      masked = maskedWith(mask, after.response)
      branch = after.branch ?? branch
    }
  } finally {
    session.close()
  }
  if (mode.pullRequest !== false)
    masked = withPullRequest(session, masked, names, { issueTitle, planSteps })
  const result = mode.result ? maskedWith(mask, mode.result(masked)) : masked
  writeResultFile(outputPath, result)
  return {
    response: masked,
    result,
    mask,
    outputPath,
    logDir,
    ...(replayFile ? { replayFile } : {}),
    ...names,
    branch
  }
}

/**
 * A green run's pull request, ready to open: rendered once, here, from the masked response
 * (what the model wrote is masked before it is quoted), then masked itself.
 */
function withPullRequest(
  session: RunSession,
  response: CodeAgentOutput,
  names: { issueNumber?: number },
  about: { issueTitle?: string; planSteps?: readonly unknown[] }
): CodeAgentOutput {
  const commits = response.data ?? []
  if (!response.success || commits.length === 0) return response
  const issueNumber = names.issueNumber ?? commits[0]?.issue_number
  const text = pullRequestText(commits, response.metrics, {
    issueNumber,
    ...about,
    runUrl: runUrl(session.env)
  })
  return { ...response, pull_request: maskedWith(session.mask, text) }
}

function maskedWith<T>(mask: (text: string) => string, value: T): T {
  return JSON.parse(mask(JSON.stringify(value))) as T
}
