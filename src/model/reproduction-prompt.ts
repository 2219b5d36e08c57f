import type { ChatMessage } from './chat.js'
import { renderTemplate } from './prompt-templates.js'
import { fence, sanitizeUntrusted } from './untrusted-text.js'

/** What the model is shown to write a reproduction: the framework, a test to follow, the code. */
interface ReproductionRequest {
  path: string
  /** The framework as a person names it ("pytest", "Node's built-in test runner …"). */
  framework: string
  command: string
  /** An existing test of the repository, to follow its imports and style. */
  example?: { path: string; content: string }
  /** The planned files as they are on the base: the code the test calls. */
  sources: ReadonlyArray<{ path: string; content: string }>
  /** The last try, when it was no reproduction: the test, why not, and what the base printed. */
  previous?: { test: string; problem: string; output: string }
  /** Characters of example and sources together (the rest of the prompt is the draft's). */
  codeChars: number
}

const REPLY_MARK = /^\s*NO_REPRODUCTION\s*:?\s*(.*)$/s

/**
 * The messages of a reproduction request: those of a draft that creates `path` (its format, its
 * rules, the issue as delimited data), then what the test must show and the code it tests.
 */
export function reproductionMessages(
  draft: readonly ChatMessage[],
  request: ReproductionRequest
): ChatMessage[] {
  const budget = { left: request.codeChars }
  const example = request.example
    ? `\nAn existing test of this repository, to follow (imports, layout, naming), ${request.example.path}:\n${cut(request.example.content, budget, 0.4)}\n`
    : ''
  const sources = request.sources.length
    ? `\nThe code under test, as it is now:\n${request.sources
        .map((file, i, all) => `${file.path}:\n${cut(file.content, budget, 1 / (all.length - i))}`)
        .join('\n')}\n`
    : ''
  const previous = request.previous
    ? `\nYour previous test was not a reproduction: ${sanitizeUntrusted(request.previous.problem, 500)}.\nIt read:\n${fence(request.previous.test.slice(0, 6_000))}\nWhat \`${request.command}\` printed on the current code with it:\n${fence(request.previous.output)}\nWrite the test again so that it fails by an assertion of the behaviour the issue reports.\n`
    : ''
  const content = renderTemplate('reproduce', {
    path: request.path,
    framework: request.framework,
    command: request.command,
    example,
    sources,
    previous
  })
  return [...draft, { role: 'user', content }]
}

/** The model's "nothing to reproduce" and its reason; undefined for any other reply. */
export function noReproductionReason(reply: string): string | undefined {
  const said = REPLY_MARK.exec(reply)
  if (!said) return undefined
  const reason = said[1]!.split('\n')[0]!.trim()
  return sanitizeUntrusted(reason || 'no reason given', 200)
}

/** A share of what is left of the budget, fenced; the cut is said. */
function cut(text: string, budget: { left: number }, share: number): string {
  const room = Math.max(0, Math.floor(budget.left * share))
  const kept =
    text.length <= room ? text : `${text.slice(0, room)}\n[… ${text.length - room} characters cut]`
  budget.left -= Math.min(text.length, room)
  return fence(kept)
}
