import { readFileSync } from 'node:fs'
import { issueSchema, type Issue } from '../../contract/index.js'

/** A writer's reply that approves a plan: `/patchsmith approve <hash>` at the start of a line. */
const APPROVE = /^[ \t]*\/patchsmith[ \t]+approve\b[ \t]*([^\s]*)/im

/** What the triggering event asks: the approval of a plan on an issue. */
export interface ApprovalRequest {
  /** The hash the comment names ('' when it names none). */
  hash: string
  /** Who wrote the approval (the event's sender). */
  by: string
  /** The issue as the event has it now: its text is part of what the hash names. */
  issue: Issue
}

type Payload = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The approval in the triggering event, when it is one: a comment created (or edited) on an
 * issue, not a pull request, with `/patchsmith approve` at the start of a line. Anything else
 * (the label that asks for a plan, a dispatch) is not an approval and gets a plan posted.
 */
export function approvalRequest(
  eventName: string | undefined,
  eventPath: string | undefined
): ApprovalRequest | undefined {
  if (eventName !== 'issue_comment' || !eventPath) return undefined
  let payload: Payload
  try {
    payload = JSON.parse(readFileSync(eventPath, 'utf8')) as Payload
  } catch {
    return undefined // the loader reports an unreadable event
  }
  if (payload.action !== 'created' && payload.action !== 'edited') return undefined
  if (!payload.issue || payload.issue.pull_request) return undefined
  const command = APPROVE.exec(String(payload.comment?.body ?? ''))
  if (!command) return undefined
  // The sender: whose permission is checked (assertActorAllowed reads the same field).
  const by = typeof payload.sender?.login === 'string' ? payload.sender.login : ''
  const issue = issueSchema().safeParse(payload.issue)
  if (!issue.success) return undefined
  return { hash: (command[1] ?? '').toLowerCase(), by, issue: issue.data }
}
