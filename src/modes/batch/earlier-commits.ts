import { BranchExistsError } from '../../contract/index.js'
import { PATCHSMITH_TRAILER, type ContinuedBranch } from '../../change/index.js'

/** An issue an earlier run of the batch committed on its branch: its last commit there. */
interface DoneIssue {
  issue: number
  sha: string
}

const FIXES = /^Fixes #(\d+)$/

/**
 * The issues an earlier run of this batch committed on the branch found on origin, in order.
 * Every commit there must be Patchsmith's (its `Patchsmith-Commit` trailer) and name, by its
 * `Fixes #N` line, an issue of the batch, in the batch's order from its first issue: the done
 * issues are then the first ones of the list. Anything else is not this batch's work and is
 * refused (BRANCH_EXISTS) rather than built on.
 */
export function doneIssues(
  branch: string,
  continued: ContinuedBranch,
  numbers: readonly number[]
): DoneIssue[] {
  const done: DoneIssue[] = []
  const refuse = (why: string) =>
    new BranchExistsError(
      `Branch "${branch}" is on origin, but ${why}; a rerun of the batch continues only on the commits an earlier run of it made. Delete the branch to run the batch from the start.`,
      { branch, tip: continued.tip, rule: 'different-change' }
    )
  if (continued.commits.length > numbers.length * 50)
    throw refuse(`it holds ${continued.commits.length} commits the base does not have`)
  for (const commit of continued.commits) {
    const issue = issueOf(commit.message)
    const at = `commit ${commit.sha.slice(0, 12)}`
    if (issue === undefined)
      throw refuse(
        `${at} is not one of Patchsmith's batch commits (no ${PATCHSMITH_TRAILER} trailer with one Fixes #N line)`
      )
    if (commit.parents.length !== 1) throw refuse(`${at} is a merge`)
    const last = done[done.length - 1]
    if (last?.issue === issue) {
      last.sha = commit.sha // a plan committed in steps: its last commit stands for it
      continue
    }
    const expected = numbers[done.length]
    if (issue !== expected)
      throw refuse(
        `${at} fixes #${issue} where the batch's order has ${expected === undefined ? 'no further issue' : `#${expected}`}`
      )
    done.push({ issue, sha: commit.sha })
  }
  return done
}

/**
 * The issue of a commit Patchsmith made: its trailer in the last paragraph, and below the
 * subject one `Fixes #N` line (its own paragraph, or beside the trailers).
 */
function issueOf(message: string): number | undefined {
  const paragraphs = message
    .replace(/\r\n?/g, '\n')
    .trim()
    .split(/\n[ \t]*\n/)
  const lines = (paragraph: string) => paragraph.split('\n').map((line) => line.trim())
  if (
    paragraphs.length < 2 ||
    !lines(paragraphs[paragraphs.length - 1]!).includes(PATCHSMITH_TRAILER)
  )
    return undefined
  const fixes = new Set(
    paragraphs
      .slice(1)
      .flatMap((paragraph) => lines(paragraph).flatMap((line) => FIXES.exec(line)?.[1] ?? []))
  )
  return fixes.size === 1 ? Number([...fixes][0]) : undefined
}
