import {
  approvablePlanSchema,
  InvalidInputError,
  PLAN_HASH_LENGTH,
  planHash,
  type CodeAgentInput
} from '../../contract/index.js'
import { githubClient, type GitHubClientOptions } from '../../github/index.js'
import { readStructured } from '../../inputs/index.js'
import { readPlanJson } from '../../report/index.js'
import type { ApprovalRequest } from './approval-request.js'

interface PlanSource {
  token?: string
  /** `owner/repo` */
  repository?: string
  client?: GitHubClientOptions
}

/** A plan found in one of Patchsmith's plan comments, read as it stands now. */
interface PostedPlan {
  input?: CodeAgentInput
  hash?: string
  problem?: string
  /** When its comment was last written (GitHub's `updated_at`). */
  updatedAt?: string
}

/** The plan an approval names, and its hash. */
interface Approved {
  input: CodeAgentInput
  hash: string
}

type Refusal = 'approval-without-hash' | 'no-plan-to-approve' | 'plan-changed'

/**
 * The plan an approval names: among the plan comments Patchsmith posted on the issue (a bot's
 * comments only: an outsider cannot edit them, a writer can), the one whose plan, with the
 * issue's text as the approval event has it, has the approved hash; for the approval label, the
 * newest one, as it was when the label was added. None has it: the plan or the issue changed
 * after the approval, and the run refuses before anything is read or changed.
 */
export async function approvedPlan(
  request: ApprovalRequest,
  source: PlanSource
): Promise<Approved> {
  const posted = (await planComments(request.issue.number, source)).map((comment) => ({
    ...readPosted(comment.body, request),
    updatedAt: comment.updatedAt
  }))
  const newest = posted[posted.length - 1]
  const now = newest?.hash ? ` The plan posted last has hash ${newest.hash}.` : ''
  const refuse = (message: string, rule: Refusal) =>
    new InvalidInputError(message, {
      field: 'plan-approval',
      rule,
      approved: request.hash || null,
      ...(newest?.hash ? { now: newest.hash } : {})
    })
  if (!newest)
    throw refuse(
      `Issue #${request.issue.number} has no plan posted by Patchsmith to approve: a run with plan-approval: required posts one first.`,
      'no-plan-to-approve'
    )
  if (request.label) return labelledPlan(request, request.label, newest, refuse)
  if (!new RegExp(`^[0-9a-f]{${PLAN_HASH_LENGTH}}$`).test(request.hash))
    throw refuse(
      `The approval of ${request.by} names no plan hash${request.hash ? ` ("${request.hash.slice(0, 40)}" is not one)` : ''}.${now} Reply \`/patchsmith approve <hash>\` with the hash of the plan as it is now.${newest.problem ? ` ${newest.problem}` : ''}`,
      'approval-without-hash'
    )
  const match = posted.find((plan) => plan.hash === request.hash)
  if (!match?.input)
    throw refuse(
      `No plan on issue #${request.issue.number} has the hash ${request.hash} that ${request.by} approved: the plan or the issue's text changed after the approval. Nothing was changed.${now}${newest.problem ? ` ${newest.problem}` : ''} Approve the plan as it is now.`,
      'plan-changed'
    )
  return { input: match.input, hash: request.hash }
}

/**
 * The approval label approves the plan of Patchsmith's newest plan comment as it was when the
 * label was added, with the issue's text as the label's event has it: that comment must not
 * have been written since (GitHub's times, to the second), else the plan there is not the one
 * approved.
 */
function labelledPlan(
  request: ApprovalRequest,
  label: { name: string; at: string },
  newest: PostedPlan,
  refuse: (message: string, rule: Refusal) => Error
): Approved {
  const approval = `${request.by}'s label "${label.name}"`
  const labelledAt = Date.parse(label.at)
  const written = Date.parse(newest.updatedAt ?? '')
  if (!(written <= labelledAt))
    throw refuse(
      Number.isNaN(labelledAt) || Number.isNaN(written)
        ? `${approval} cannot be matched to a plan: the event or Patchsmith's plan comment on #${request.issue.number} gives no time to compare. Nothing was changed.`
        : `Patchsmith's plan comment on #${request.issue.number} was written at ${newest.updatedAt}, after ${approval} was added (${label.at}): the plan there is not the one approved. Nothing was changed. Remove the label and add it again to approve the plan as it is now.`,
      'plan-changed'
    )
  if (!newest.input || !newest.hash)
    throw refuse(
      `${approval} approves Patchsmith's newest plan comment on #${request.issue.number}, which holds no plan that can run. ${newest.problem ?? ''} Nothing was changed.`,
      'no-plan-to-approve'
    )
  return { input: newest.input, hash: newest.hash }
}

/** The bot comments on the issue that hold a plan, oldest first. */
async function planComments(
  issueNumber: number,
  source: PlanSource
): Promise<{ body: string; updatedAt?: string }[]> {
  const [owner = '', repo = ''] = (source.repository ?? '').split('/')
  if (!source.token || !owner || !repo)
    throw new InvalidInputError(
      'plan-approval: reading the approved plan needs github-token and GITHUB_REPOSITORY.',
      { field: 'github-token' }
    )
  const octokit = await githubClient(source.token, source.client)
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100
  })
  return comments
    .filter((comment) => comment.user?.type === 'Bot' && readPlanJson(comment.body ?? ''))
    .map((comment) => ({ body: comment.body ?? '', updatedAt: comment.updated_at }))
}

function readPosted(body: string, request: ApprovalRequest): PostedPlan {
  try {
    const value = readStructured(readPlanJson(body)!.trim(), 'plan comment', '/')
    const parsed = approvablePlanSchema().safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      return {
        problem: `Its plan JSON is not a plan: ${issue?.path.join('.')}: ${issue?.message}.`
      }
    }
    const input = { issue: request.issue, ...parsed.data }
    return { input, hash: planHash(input) }
  } catch (error) {
    return { problem: `Its plan JSON could not be read: ${(error as Error).message}` }
  }
}
