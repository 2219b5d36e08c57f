import { inert } from '../../report/index.js'
import { replyMarker, type ThreadOutcome } from './plan.js'
import type { PullRequestReview, ReviewThread } from './pull-request.js'

export interface RoundResult {
  round: number
  /** The pushed commit and the files it changed; absent when nothing was pushed. */
  commit?: { sha: string; files: readonly string[] }
  /** Why the round failed (an error code and rule, no model-written text). */
  failure?: string
  /** Dry-run or push: false: the threads are reported, not answered. */
  quiet: boolean
}

/**
 * Every thread's outcome, answered on GitHub unless the round is quiet: fixed (the reply names
 * the commit, and the thread is resolved) only when the commit changed the thread's file;
 * escalated (why, left open) otherwise or when the round failed; declined (why). A reply or
 * resolution GitHub does not take is recorded on the outcome and the others go on.
 */
export async function answerThreads(
  review: PullRequestReview,
  actionable: readonly ReviewThread[],
  declined: readonly { thread: ReviewThread; reason: string }[],
  result: RoundResult,
  mask: (text: string) => string
): Promise<ThreadOutcome[]> {
  const outcomes: ThreadOutcome[] = []
  for (const thread of actionable) {
    const where = { id: thread.id, path: thread.path, line: thread.line }
    const { commit } = result
    let outcome: ThreadOutcome
    let body: string
    if (result.quiet) {
      outcomes.push({ ...where, status: 'planned' })
      continue
    }
    if (commit && commit.files.includes(thread.path!)) {
      outcome = { ...where, status: 'fixed', commit: commit.sha }
      body = `Addressed in ${commit.sha} (Patchsmith follow-up, round ${result.round}).`
    } else {
      const why = commit
        ? `the commit ${commit.sha} did not change ${thread.path}`
        : (result.failure ?? 'the run did not finish')
      outcome = { ...where, status: 'escalated', reason: why }
      body = `Patchsmith could not address this in round ${result.round} (${inert(why)}). Left open for a maintainer.`
    }
    await answer(review, thread, outcome, body, mask)
    outcomes.push(outcome)
  }
  for (const { thread, reason } of declined) {
    const outcome: ThreadOutcome = {
      id: thread.id,
      path: thread.path,
      line: thread.line,
      status: 'declined',
      reason
    }
    if (!result.quiet)
      await answer(
        review,
        thread,
        outcome,
        `Patchsmith did not change this: ${inert(reason)}.`,
        mask
      )
    outcomes.push(outcome)
  }
  return outcomes
}

async function answer(
  review: PullRequestReview,
  thread: ReviewThread,
  outcome: ThreadOutcome,
  text: string,
  mask: (text: string) => string
): Promise<void> {
  try {
    await review.reply(thread.id, mask(`${replyMarker(outcome.status)}\n${text}`))
    if (outcome.status === 'fixed') await review.resolve(thread.id)
  } catch (error) {
    outcome.answer_failed = mask(error instanceof Error ? error.message : String(error)).slice(
      0,
      500
    )
  }
}
