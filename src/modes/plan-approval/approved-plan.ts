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

export interface PlanSource {
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
}

/**
 * The plan an approval names: among the plan comments Patchsmith posted on the issue (a bot's
 * comments only: an outsider cannot edit them, a writer can), the one whose plan, with the
 * issue's text as the approval event has it, has the approved hash. None has it: the plan or
 * the issue changed after the approval, and the run refuses before anything is read or changed.
 */
export async function approvedPlan(
  request: ApprovalRequest,
  source: PlanSource
): Promise<CodeAgentInput> {
  const posted = (await planComments(request.issue.number, source)).map((body) =>
    readPosted(body, request)
  )
  const newest = posted[posted.length - 1]
  const now = newest?.hash ? ` The plan posted last has hash ${newest.hash}.` : ''
  const refuse = (
    message: string,
    rule: 'approval-without-hash' | 'no-plan-to-approve' | 'plan-changed'
  ) =>
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
  return match.input
}

/** The bodies of the bot comments on the issue that hold a plan, oldest first. */
async function planComments(issueNumber: number, source: PlanSource): Promise<string[]> {
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
    .map((comment) => comment.body ?? '')
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
