import type { FileChange, Issue, StyleConfig } from '../contract/index.js'
import { formatNamed, type ReplyFormat, type SyntaxOutline } from '../edits/index.js'
import { fileWindow, type FileWindow } from './file-window.js'
import type { ChatMessage } from './chat.js'
import { renderTemplate } from './prompt-templates.js'
import { repairMessage, type RepairContext } from './repair-prompt.js'
import { fence, sanitizeBody, sanitizeTitle, sanitizeUntrusted, tail } from './untrusted-text.js'

export interface DraftRequest {
  /** The edit format: its strategy names the user prompt and whether the file is resent whole. */
  format: ReplyFormat
  issue: Issue
  change: FileChange
  planSteps: readonly unknown[]
  /** The file as it is now (null when it does not exist yet). */
  content: string | null
  style: StyleConfig
  repair?: RepairContext
  /** The repository's instructions for this file, fenced and capped (instructionsBlock). */
  repoInstructions?: string
  /** The reproduction test written first, and its failure on the base: the fix must flip it. */
  reproduction?: { path: string; test: string; failure: string }
}

/** How much of each part goes in: the full prompt first, then smaller shapes to fit a budget. */
interface PromptShape {
  /** A numbered window of the file instead of all of it. */
  window?: FileWindow
  /** Other changed files by name only, not their content. */
  otherFilesByName?: boolean
  issueChars?: number
  failureChars?: number
}

function describeStyle(style: StyleConfig): string {
  const indent = style.indent_style === 'tab' ? 'tabs' : `${style.indent_size} spaces`
  const finalNewline = style.insert_final_newline ? 'a final newline' : 'no required final newline'
  return `indent with ${indent}, ${style.end_of_line.toUpperCase()} line endings, ${finalNewline}`
}

/**
 * The messages for one planned file: the fixed rules, format and example first, then the
 * repository's instructions, the issue as delimited untrusted data, the plan and the file.
 */
export function draftMessages(request: DraftRequest, shape: PromptShape = {}): ChatMessage[] {
  const { issue, change, content, repair } = request
  const values = {
    // The repository's own instructions go after the fixed rules, format and example and before
    // the issue, so every draft and rerun shares the longest prefix.
    repo_instructions: request.repoInstructions ?? '',
    style: describeStyle(request.style),
    issue_number: issue.number,
    issue_title: sanitizeTitle(issue.title),
    issue_body: sanitizeBody(issue.body, shape.issueChars),
    path: change.path,
    operation: change.operation,
    line_range: change.line_range
      ? `${change.line_range[0]}-${change.line_range[1]}`
      : 'whole file',
    description: sanitizeUntrusted(change.description ?? 'as the issue describes', 4_000),
    plan_steps: sanitizeUntrusted(planStepsText(request.planSteps), 8_000),
    content:
      content === null
        ? '(the file does not exist yet: create it)'
        : (shape.window?.text ?? fence(content)),
    old_name: content === null ? '/dev/null' : `a/${change.path}`
  }
  const messages: ChatMessage[] = [
    { role: 'system', content: renderTemplate('system', values) },
    { role: 'user', content: renderTemplate(formatNamed(request.format).template, values) }
  ]
  if (request.reproduction) {
    const { path, test, failure } = request.reproduction
    messages.push({
      role: 'user',
      content: renderTemplate('reproduction-context', {
        path,
        test: fence(test.slice(0, 6_000)),
        failure: fence(tail(failure, shape.failureChars ?? 3_000)),
        planned: change.path
      })
    })
  }
  if (repair) messages.push(repairMessage(repair, values, shape))
  return messages
}

/**
 * The prompt shapes to try, largest first: as it is; other files by name; a window of the
 * file, narrowing (needs a line_range, and an edit format that does not resend the whole
 * file); then the issue and the failure output cut.
 */
export function promptShapes(request: DraftRequest, syntax?: SyntaxOutline | null): PromptShape[] {
  const shapes: PromptShape[] = [{}]
  const others = Object.keys(request.repair?.otherFiles ?? {}).length > 0
  if (others) shapes.push({ otherFilesByName: true })
  const base: PromptShape = { otherFilesByName: others || undefined }
  const range = request.change.line_range
  let smallest = base
  if (request.content !== null && range && !formatNamed(request.format).resendsWholeFile) {
    for (const radius of [60, 30, 15, 5]) {
      smallest = {
        ...base,
        window: fileWindow(request.change.path, request.content, range, radius, syntax)
      }
      shapes.push(smallest)
    }
  }
  shapes.push({ ...smallest, issueChars: 4_000, failureChars: 4_000 })
  shapes.push({ ...smallest, issueChars: 1_000, failureChars: 1_500 })
  return shapes
}

function planStepsText(steps: readonly unknown[]): string {
  if (steps.length === 0) return '(none)'
  return steps
    .map((step, i) => `${i + 1}. ${typeof step === 'string' ? step : JSON.stringify(step)}`)
    .join('\n')
}
