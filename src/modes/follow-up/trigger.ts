import { readFileSync } from 'node:fs'
import { InvalidInputError } from '../../contract/index.js'

/** What a follow-up answers: the review threads of a pull request, or a failed check on it. */
interface FollowUpTrigger {
  pullRequest: number
  /**
   * A failed workflow run (workflow_run) or check suite (check_suite) whose log drives the fix,
   * and the commit it ran on (a failure of an older commit drives nothing).
   */
  failedRun?: { runId?: number; checkSuiteId?: number; headSha: string }
}

/** A comment asks for a follow-up with this command (`/patchsmith`, `/patchsmith fix`, …). */
const COMMAND = /^\s*\/patchsmith\b/m

type Payload = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The pull request and the reason, from the `follow-up` setting: a number (its review threads),
 * or `true` to read them from the event: `pull_request_review` with changes requested,
 * `pull_request_review_comment` or `issue_comment` on a pull request carrying the command, or a
 * failed `workflow_run` or `check_suite` on the pull request's branch.
 */
export function followUpTrigger(
  setting: string,
  eventName: string | undefined,
  eventPath: string | undefined
): FollowUpTrigger {
  const number = /^#?(\d+)$/.exec(setting.trim())
  if (number) return { pullRequest: Number(number[1]) }
  if (!/^(true|yes|on|event)$/i.test(setting.trim())) {
    throw new InvalidInputError(
      `Setting "follow-up": expected a pull request number, or true to take it from the event; got "${setting}".`,
      { field: 'follow-up' }
    )
  }
  const payload = readPayload(eventPath)
  const refuse = (why: string) =>
    new InvalidInputError(`Nothing to follow up: ${why}.`, {
      field: 'follow-up',
      rule: 'no-follow-up',
      event: eventName ?? null
    })
  switch (eventName) {
    case 'pull_request_review':
      if (payload.review?.state !== 'changes_requested')
        throw refuse(`the review is "${String(payload.review?.state)}", not changes requested`)
      return { pullRequest: Number(payload.pull_request?.number) }
    case 'pull_request_review_comment':
    case 'issue_comment': {
      const pr =
        payload.pull_request?.number ??
        (payload.issue?.pull_request ? payload.issue.number : undefined)
      if (!pr) throw refuse('the comment is not on a pull request')
      if (!COMMAND.test(String(payload.comment?.body ?? '')))
        throw refuse('the comment does not start a line with /patchsmith')
      return { pullRequest: Number(pr) }
    }
    case 'workflow_run':
    case 'check_suite': {
      const run = payload[eventName]
      if (run?.conclusion !== 'failure')
        throw refuse(`the ${eventName} concluded "${String(run?.conclusion)}"`)
      const pr = run.pull_requests?.[0]?.number
      if (!pr) throw refuse(`the ${eventName} is on no pull request`)
      const headSha = String(run.head_sha ?? '')
      if (!/^[0-9a-f]{40}$/.test(headSha)) throw refuse(`the ${eventName} names no commit`)
      return {
        pullRequest: Number(pr),
        failedRun:
          eventName === 'workflow_run'
            ? { runId: Number(run.id), headSha }
            : { checkSuiteId: Number(run.id), headSha }
      }
    }
    default:
      throw refuse(
        `a ${eventName ?? 'missing'} event names no pull request; set follow-up to its number`
      )
  }
}

function readPayload(path: string | undefined): Payload {
  if (!path) return {}
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Payload
  } catch (error) {
    throw new InvalidInputError(
      `The event payload ${path} could not be read: ${(error as Error).message}`,
      {
        field: 'follow-up'
      }
    )
  }
}
