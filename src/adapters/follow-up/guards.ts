import { InvalidInputError } from '../../contract/index.js'
import { Git } from '../../git/index.js'
import { replyMarker } from './plan.js'
import type { PullRequestInfo, PullRequestReview } from './pull-request.js'

/** The trailer that counts a pull request's follow-up rounds. */
export const ROUND_TRAILER = 'Patchsmith-Follow-Up'
// The branch names Patchsmith gives its pull requests (planBranchName and the commit types).
const PATCHSMITH_BRANCH = /^(fix|feat|docs|chore|refactor)\/\d+(-[a-z0-9-]+)?$/

/**
 * Only Patchsmith's own, open pull request from this repository, on a branch of its naming
 * that is not the default branch: anything else could put a commit where nobody reviews it.
 */
export function assertPatchsmithPullRequest(
  pr: PullRequestInfo,
  repository: string | undefined
): void {
  const refuse = (why: string, rule: string) =>
    new InvalidInputError(
      `Pull request #${pr.number} ${why}: follow-ups only change Patchsmith's own pull requests.`,
      {
        field: 'follow-up',
        rule
      }
    )
  if (!pr.open) throw refuse('is not open', 'not-open')
  if (!repository || pr.headRepo !== repository)
    throw refuse(
      `comes from ${pr.headRepo ?? 'a deleted repository'}, not ${repository ?? 'this repository'}`,
      'not-patchsmith-pr'
    )
  if (pr.head === pr.defaultBranch || !PATCHSMITH_BRANCH.test(pr.head))
    throw refuse(
      `is on the branch ${pr.head}, not one Patchsmith names (fix/<issue>-…)`,
      'not-patchsmith-pr'
    )
}

/** The round this run would be (counted from the trailers of the commits); past the cap, a refusal. */
export async function nextRound(
  review: PullRequestReview,
  pr: PullRequestInfo,
  max: number
): Promise<number> {
  const trailer = new RegExp(`(^|\\n\\n)([^\\n]+\\n)*${ROUND_TRAILER}: \\d+\\s*$`)
  const rounds = (await review.commitMessages()).filter((message) =>
    trailer.test(message.trimEnd())
  ).length
  if (rounds < max) return rounds + 1
  await review.comment(
    `${replyMarker('declined')}\nPatchsmith has followed up on this pull request ${rounds} time(s), as many as \`max-follow-up-rounds\` (${max}) allows, and stops here. The open threads are for a maintainer now.`
  )
  throw new InvalidInputError(
    `Pull request #${pr.number} has had ${rounds} follow-up round(s), the most max-follow-up-rounds (${max}) allows; a summary comment says so on the pull request.`,
    { field: 'max-follow-up-rounds', rule: 'follow-up-rounds-exhausted', rounds }
  )
}

/**
 * The planned files are read from the work tree, and the commit goes on top of what is checked
 * out: it has to be the pull request's branch, at the commit GitHub has for it.
 */
export async function assertCheckedOut(repoDir: string, pr: PullRequestInfo): Promise<void> {
  const git = await Git.open(repoDir)
  const status = await git.status()
  if (status.branch === pr.head && status.head === pr.headSha) return
  const where = status.branch
    ? `${status.branch} at ${status.head?.slice(0, 12)}`
    : `a detached HEAD at ${status.head?.slice(0, 12)}`
  throw new InvalidInputError(
    `A follow-up works on the pull request's branch ${pr.head} at ${pr.headSha.slice(0, 12)}, but ${where} is checked out: check it out first (actions/checkout with ref: ${pr.head}), and run again if it moved.`,
    { field: 'follow-up', rule: 'not-on-pr-branch', branch: pr.head }
  )
}
