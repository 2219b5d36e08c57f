import { clip, patchError } from './patch-error.js'

// Tool-call wrappers and chat-template tokens: never content a model means to write into a file.
const TOOL_TAG =
  /<\/?(tool_call|tool_calls|tool_response|tool_result|tool_use|function_call|function_calls|function_results|invoke|antml:[\w-]+)\b[^>]*>|<\|[a-z_]+\|>/i
const FENCE = /^\s*(```|~~~)/
const MARKDOWN = /\.(md|mdx|markdown|rst|txt|adoc)$/i
// A comment that stands for code the model left out, not code: "... existing code ...".
const COMMENT = /^\s*(#|\/\/|\/\*+|\*|<!--|--|;+|%|')/
const ELIDED =
  /(\.\.\.|…)\s*\(?\s*(existing|rest|remaining|unchanged|previous|other|omitted|more|same)\b|\b(existing|remaining|unchanged|omitted|previous|original)\s+(code|implementation|content|methods|functions|lines|imports|logic)\b|\brest of (the )?(code|file|function|method|class|implementation|module|body)\b|\b(code|content|lines|implementation) (omitted|unchanged|elided|stays the same)\b/i

/**
 * Refuses an edit whose added lines hold what a reply's wrapping leaves behind rather than what
 * a file should hold: tool-call tags and chat-template tokens (always), a markdown fence in a
 * file that is not prose, and a comment standing for code the model left out (which would
 * replace that code). Only lines the edit adds are read: the file's own lines are its business.
 */
export function checkAddedText(path: string, before: string | null, after: string | null): void {
  if (after === null) return
  const existing = new Map<string, number>()
  for (const line of (before ?? '').split(/\r?\n/))
    existing.set(line, (existing.get(line) ?? 0) + 1)
  after.split(/\r?\n/).forEach((line, i) => {
    const left = existing.get(line) ?? 0
    if (left > 0) {
      existing.set(line, left - 1)
      return
    }
    const at = { kind: 'contaminated-diff' as const, file: path, line: i + 1 }
    if (TOOL_TAG.test(line)) {
      throw patchError(
        `The edit adds "${clip(line.trim(), 50)}" to ${path} (line ${i + 1}): tool-call tags and chat tokens are never file content. ` +
          'Send the edit alone, with nothing of the tool call inside it.',
        at
      )
    }
    if (FENCE.test(line) && !MARKDOWN.test(path)) {
      throw patchError(
        `The edit adds a markdown fence ("${clip(line.trim(), 20)}") to ${path} (line ${i + 1}), which is not a markdown file. ` +
          'Send the code alone, with no fences inside the edit.',
        at
      )
    }
    if (COMMENT.test(line) && ELIDED.test(line)) {
      throw patchError(
        `The edit adds "${clip(line.trim(), 50)}" to ${path} (line ${i + 1}), a placeholder for code left out; it would replace that code. ` +
          'Write out every line the edit keeps or changes; leave unchanged code out of the edit instead.',
        { ...at, kind: 'elided-code' }
      )
    }
  })
}

/**
 * A whole-file reply that keeps less than half of a file of some size, when the plan does not
 * delete it, is a reply that stopped early (or elided the rest), not a rewrite.
 */
export function checkNotTruncated(path: string, before: string | null, after: string): void {
  if (before === null) return
  const old = before.split(/\r?\n/).filter((line) => line.trim() !== '')
  if (old.length < 20) return
  const kept = new Set(after.split(/\r?\n/).map((line) => line.trim()))
  const lost = old.filter((line) => !kept.has(line.trim())).length
  if (lost * 2 <= old.length) return
  throw patchError(
    `The whole-file reply for ${path} drops ${lost} of its ${old.length} lines, and the plan does not delete it: it looks cut off. ` +
      'Send the complete file, every line, from first to last.',
    { kind: 'truncated-file', file: path }
  )
}
