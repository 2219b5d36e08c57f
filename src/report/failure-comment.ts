import type { AgentError, ErrorCode } from '../contract/index.js'
import { cell, code, defuse, details, fence, table, tail } from './markdown.js'

const STEP: Record<ErrorCode, string> = {
  INVALID_INPUT: 'Reading the issue, plan and settings',
  SECURITY_VIOLATION: 'The security check of the planned or edited paths',
  BRANCH_EXISTS: "Preparing the plan's branch",
  MODEL_ERROR: 'Asking the model for the edit',
  TOKEN_BUDGET_EXCEEDED: 'Asking the model for the edit (token budget)',
  INVALID_DIFF: "Applying the model's edit",
  VALIDATION_FAILED: 'Validating the change',
  TIMEOUT: 'The time limit of the run',
  GIT_CONFLICT: 'Git',
  PERMISSION_DENIED: 'Pushing the branch',
  CANCELLED: 'The job was cancelled',
  GITHUB_API_ERROR: "GitHub's API (GitHub's side, not the change)",
  ENVIRONMENT_ERROR: 'The machine (disk, file system or permissions)',
  INTERNAL_ERROR: 'Patchsmith itself (a bug: the stack is in the log)'
}

/** What failed, in a few words a maintainer reads first. */
export function whatFailed(error: AgentError): string {
  const detail = (error.details ?? {}) as Record<string, unknown>
  if (error.code === 'VALIDATION_FAILED' && typeof detail.command === 'string') {
    const exit =
      typeof detail.exit_code === 'number' ? ` exited with ${detail.exit_code}` : ' failed'
    return `${STEP.VALIDATION_FAILED}: ${detail.command}${exit}`
  }
  if (error.code === 'SECURITY_VIOLATION' && detail.rule === 'unauthorized-actor')
    return 'The permission check of the person who started the run'
  if (error.code === 'SECURITY_VIOLATION' && detail.rule === 'sandbox-unavailable')
    return 'Opening the sandbox for the validation commands'
  if (error.code === 'PERMISSION_DENIED' && typeof detail.rule === 'string') {
    if (detail.rule === 'no-remote' || detail.rule === 'remote-unreadable')
      return 'Reading the remote before the change'
    if (detail.rule === 'push-hook-declined') return 'Pushing the branch (refused by a server hook)'
  }
  return STEP[error.code] ?? error.code
}

interface FailureCommentContext {
  /** The plan's branch, rolled back. */
  branch?: string
  /** A link to the workflow run. */
  runUrl?: string
}

const MESSAGE_CHARS = 4_000
const OUTPUT_LINES = 40
const OUTPUT_CHARS = 6_000
/** Marks Patchsmith's comments, so people and tools can tell them apart. */
const COMMENT_MARKER = '<!-- patchsmith:failure -->'

/** The answer the rerun advice below the comment (progress.ts) agrees with. */
function rerunHelps(error: AgentError, detail: Record<string, unknown>): string {
  if (detail.last_attempt)
    return 'yes, with `resume: true` in `settings`: it repairs the last attempt'
  return error.recoverable ? 'maybe: the failure may be temporary' : 'no, not as it is'
}

/**
 * The failure comment: a fixed template around the few facts of the failure. Text from outside
 * (the message, command output) sits in code blocks and table cells, escaped, with mentions made
 * inert; the caller masks secrets in the whole body.
 */
export function failureComment(error: AgentError, context: FailureCommentContext = {}): string {
  const detail = (error.details ?? {}) as Record<string, unknown>
  const rows = [
    ['What failed', cell(whatFailed(error))],
    ['Error code', code(error.code)],
    ['Can a rerun help?', rerunHelps(error, detail)]
  ]
  if (context.branch) rows.push(['Branch', `${code(context.branch)}, rolled back`])
  if (context.runUrl) rows.push(['Run', `[logs and artifact](${context.runUrl})`])
  const parts = [
    COMMENT_MARKER,
    '### Patchsmith could not fix this automatically',
    table(['', ''], rows),
    fence(defuse(clip(error.message, MESSAGE_CHARS)))
  ]
  const output = [detail.stderr, detail.stdout]
    .filter((text): text is string => typeof text === 'string' && text.trim().length > 0)
    .join('\n')
  if (output) {
    parts.push(
      details(
        'Command output (last lines)',
        fence(defuse(tail(output, OUTPUT_LINES, OUTPUT_CHARS)))
      )
    )
  }
  parts.push(
    'Nothing was committed or pushed. A maintainer can fix the plan or the code and run it again.'
  )
  // Every part is capped, so the comment stays far below GitHub's 65,536 characters.
  return parts.join('\n\n')
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)} [… cut]` : text
}
