import { readFileSync } from 'node:fs'
import { issueSchema, type Issue } from '../../contract/index.js'

/** A writer's reply that approves a plan: `/patchsmith approve <hash>` at the start of a line. */
const APPROVE = /^[ \t]*\/patchsmith[ \t]+approve\b[ \t]*([^\s]*)/im

/** What the triggering event asks: the approval of a plan on an issue. */
export interface ApprovalRequest {
  /** The hash the comment names ('' when it names none, and for a label). */
  hash: string
  /** Who wrote the approval or added the label (the event's sender). */
  by: string
  /** The issue as the event has it now: its text is part of what the hash names. */
  issue: Issue
  /**
   * An approval by label: its name, and when it was added (the issue's `updated_at` in the
   * event, which adding the label set). It approves the plan Patchsmith's newest plan comment
   * held then.
   */
  label?: { name: string; at: string }
}

type Payload = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The approval in the triggering event, when it is one: a comment created (or edited) on an
 * issue, not a pull request, with `/patchsmith approve` at the start of a line; or the approval
 * label (`approval-label`) added to an issue. Anything else (the label that asks for a plan, a
 * dispatch) is not an approval and gets a plan posted.
 */
export function approvalRequest(
  eventName: string | undefined,
  eventPath: string | undefined,
  approvalLabel: string
): ApprovalRequest | undefined {
  if ((eventName !== 'issue_comment' && eventName !== 'issues') || !eventPath) return undefined
  let payload: Payload
  try {
    payload = JSON.parse(readFileSync(eventPath, 'utf8')) as Payload
  } catch {
    return undefined // the loader reports an unreadable event
  }
  if (!payload.issue || payload.issue.pull_request) return undefined
  // The sender: whose permission is checked (assertActorAllowed reads the same field).
  const by = typeof payload.sender?.login === 'string' ? payload.sender.login : ''
  const issue = issueSchema().safeParse(payload.issue)
  if (!issue.success) return undefined
  if (eventName === 'issues') {
    const name = payload.label?.name
    // GitHub's label names are unique regardless of case.
    if (payload.action !== 'labeled' || typeof name !== 'string') return undefined
    if (name.toLowerCase() !== approvalLabel.toLowerCase()) return undefined
    const at = typeof payload.issue.updated_at === 'string' ? payload.issue.updated_at : ''
    return { hash: '', by, issue: issue.data, label: { name, at } }
  }
  if (payload.action !== 'created' && payload.action !== 'edited') return undefined
  const command = APPROVE.exec(String(payload.comment?.body ?? ''))
  if (!command) return undefined
  return { hash: (command[1] ?? '').toLowerCase(), by, issue: issue.data }
}
