import { InvalidInputError, type RefusalRule } from '../../contract/index.js'
import { checkedOut } from '../../engine/index.js'
import { replyMarker } from './plan.js'
import type { PullRequestInfo, PullRequestReview } from './pull-request.js'
import { madeByPatchsmith, PATCHSMITH_TRAILERS, roundOf } from './trailers.js'

/**
 * Only Patchsmith's own, open pull request from this repository, not on the default branch:
 * opened by the token's user (whoever the run pushes as), its first commit one Patchsmith made
 * (its trailer). A branch's name proves nothing: anyone can name one `fix/12-…`.
 */
export async function assertPatchsmithPullRequest(
  pr: PullRequestInfo,
  review: PullRequestReview,
  repository: string | undefined
): Promise<void> {
  const refuse = (why: string, rule: RefusalRule) =>
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
  if (pr.head === pr.defaultBranch)
    throw refuse(`is on the default branch ${pr.head}`, 'not-patchsmith-pr')
  const viewer = await review.viewer()
  if (!viewer || !pr.author || sameUser(pr.author) !== sameUser(viewer))
    throw refuse(
      `was opened by ${pr.author ?? 'a deleted account'}, not by the token's user ${viewer ?? '(unknown)'}`,
      'not-patchsmith-pr'
    )
  const [first] = await review.commitMessages()
  if (!first || !madeByPatchsmith(first))
    throw refuse(
      `does not start with a commit of Patchsmith's (no ${PATCHSMITH_TRAILERS.join(' or ')} trailer)`,
      'not-patchsmith-pr'
    )
}

/** GraphQL names a bot `github-actions`, REST `github-actions[bot]`. */
function sameUser(login: string): string {
  return login.toLowerCase().replace(/\[bot\]$/, '')
}

/** The round this run would be (counted from the trailers of the commits); past the cap, a refusal. */
export async function nextRound(
  review: PullRequestReview,
  pr: PullRequestInfo,
  max: number
): Promise<number> {
  const rounds = (await review.commitMessages()).filter(
    (message) => roundOf(message) !== undefined
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
  const status = await checkedOut(repoDir)
  if (status.branch === pr.head && status.head === pr.headSha) return
  const where = status.branch
    ? `${status.branch} at ${status.head?.slice(0, 12)}`
    : `a detached HEAD at ${status.head?.slice(0, 12)}`
  throw new InvalidInputError(
    `A follow-up works on the pull request's branch ${pr.head} at ${pr.headSha.slice(0, 12)}, but ${where} is checked out: check it out first (actions/checkout with ref: ${pr.head}), and run again if it moved.`,
    { field: 'follow-up', rule: 'not-on-pr-branch', branch: pr.head }
  )
}
