import stripAnsi from 'strip-ansi'
import type { CodeAgentInput, FileChange } from '../../contract/index.js'
import type { PathPolicy } from '../../policy/index.js'
import { truncateMiddle } from '../../validation/index.js'
import type { PullRequestInfo, PullRequestReview, ReviewThread } from './pull-request.js'

/**
 * How one thread ended: changed in the new commit, declined (why), left to a maintainer
 * (escalated, why), or only planned (dry-run, or push: false: nothing was answered).
 */
export interface ThreadOutcome {
  id: string
  path: string | null
  line: number | null
  status: 'fixed' | 'declined' | 'escalated' | 'planned'
  reason?: string
  commit?: string
  /** The reply or resolution GitHub did not take (the outcome stands; the thread may show less). */
  answer_failed?: string
}

interface SortedThreads {
  actionable: ReviewThread[]
  declined: { thread: ReviewThread; reason: string }[]
  /** Threads by people who may not write to the repository, and threads already answered. */
  ignored: number
}

/**
 * Marks Patchsmith's own replies with their outcome. A thread whose last comment is Patchsmith's
 * own fixed or declined answer (by the token's user, never anyone else's copy of the marker) is
 * not answered again; an escalated one is tried again in the next round.
 */
export const replyMarker = (status: ThreadOutcome['status']) =>
  `<!-- patchsmith-follow-up:${status} -->`
const FINAL_ANSWER = /<!-- patchsmith-follow-up:(fixed|declined) -->/
const LOG_LIMIT = 12_000

/**
 * The open threads that count (their first comment by someone with write access, not answered
 * by Patchsmith since), split into those it will change and those it declines: a thread on no
 * file or on lines that have changed since is ambiguous; one on a path the policy refuses is
 * outside the policy; one on a file that is gone has nothing to change.
 */
export async function sortThreads(
  review: PullRequestReview,
  { threads, viewer }: { threads: readonly ReviewThread[]; viewer: string | null },
  policy: PathPolicy,
  exists: (path: string) => boolean
): Promise<SortedThreads> {
  const sorted: SortedThreads = { actionable: [], declined: [], ignored: 0 }
  for (const thread of threads) {
    if (thread.isResolved) continue
    const last = thread.latest[thread.latest.length - 1]
    const answered = viewer !== null && last?.author === viewer && FINAL_ANSWER.test(last.body)
    if (answered || !(await review.canWrite(thread.author))) {
      sorted.ignored++
      continue
    }
    const violation = thread.path === null ? undefined : policy.check(thread.path)
    const reason =
      thread.path === null
        ? 'ambiguous: the comment is on no file'
        : thread.isOutdated
          ? 'ambiguous: the lines it is on have changed since'
          : violation
            ? `outside the policy: ${violation.reason} [rule ${violation.rule}]`
            : !exists(thread.path)
              ? `${thread.path} is not in the branch`
              : undefined
    if (reason) sorted.declined.push({ thread, reason })
    else sorted.actionable.push(thread)
  }
  return sorted
}

/**
 * The run's input for the threads: one planned change per file, each thread a step. The
 * reviewers' words go where an issue's do, and are fenced as untrusted text like them.
 */
export function reviewInput(
  pr: PullRequestInfo,
  threads: readonly ReviewThread[],
  branch: string
): CodeAgentInput {
  const byPath = new Map<string, ReviewThread[]>()
  for (const thread of threads)
    byPath.set(thread.path!, [...(byPath.get(thread.path!) ?? []), thread])
  const changes: FileChange[] = [...byPath].map(([path, onPath]) => {
    const lines = onPath
      .map((thread) => thread.line)
      .filter((line): line is number => line !== null)
    return {
      path,
      operation: 'MODIFY',
      ...(lines.length > 0
        ? { line_range: [Math.min(...lines), Math.max(...lines)] as [number, number] }
        : {}),
      description: clip(onPath.map((thread) => thread.body).join('\n\n'), 10_000)
    }
  })
  const body = threads
    .map(
      (thread) =>
        `### ${thread.path}, line ${thread.line ?? '?'} (review by @${thread.author})\n\n${thread.body}`
    )
    .join('\n\n')
  return {
    issue: {
      number: pr.number,
      title: clip(`Address the review of #${pr.number}: ${pr.title}`, 1_000),
      body: clip(
        `Reviewers asked for these changes on pull request #${pr.number}:\n\n${body}`,
        200_000
      )
    },
    triage_result: { classification: 'fix' },
    fix_plan: {
      branch_name: branch,
      plan_steps: threads.map(
        (thread) => `${thread.path}:${thread.line ?? '?'}: ${clip(oneLine(thread.body), 300)}`
      ),
      file_changes: changes,
      validation_commands: []
    }
  }
}

/** The run's input for a failed check: its log (head and tail) as the issue, the PR's files planned. */
export function failedCheckInput(
  pr: PullRequestInfo,
  failed: { job: string; log: string },
  files: readonly string[],
  branch: string
): CodeAgentInput {
  const log = truncateMiddle(stripAnsi(failed.log), LOG_LIMIT)
  return {
    issue: {
      number: pr.number,
      title: clip(`Fix the failing check "${failed.job}" on #${pr.number}: ${pr.title}`, 1_000),
      body: `The check "${failed.job}" failed on pull request #${pr.number}. Change the code so that it passes. Its log (head and tail):\n\n${log}`
    },
    triage_result: { classification: 'fix' },
    fix_plan: {
      branch_name: branch,
      plan_steps: [`Make the check "${failed.job}" pass`],
      file_changes: files.slice(0, 50).map((path) => ({
        path,
        operation: 'MODIFY',
        description:
          'A file of the pull request. Change it only if the failing check needs it; otherwise reply with exactly NO_CHANGES.'
      })),
      validation_commands: []
    }
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()
const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text
