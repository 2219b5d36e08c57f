import type { Node } from 'web-tree-sitter'
import type { SyntaxProblem } from './problem.js'

const FENCE = /^[ \t]*```/gm
/** Nodes a fence line may stand inside: strings, comments, heredocs, YAML scalars, PHP's HTML. */
const TEXT_LIKE = /string|template|comment|heredoc|nowdoc|scalar|text|fragment|content/

/**
 * The first Markdown fence line (```` ``` ````, ```` ```ts ````) that is code rather than inside
 * a string or a comment: a model's reply leaking into the file. Several languages parse one
 * cleanly (backticks are template literals in JS, raw strings in Go, commands in Ruby), so the
 * tree alone does not always show it.
 */
export function strayFence(root: Node, text: string): SyntaxProblem | null {
  if (!text.includes('```')) return null
  for (const match of text.matchAll(FENCE)) {
    const start = match.index + match[0].length - 3
    if (!insideText(root.descendantForIndex(start, start + 3), start)) {
      const line = lineAt(text, start)
      const column = start - text.lastIndexOf('\n', start - 1)
      return {
        line,
        column,
        message: `syntax error at line ${line}: a Markdown fence (\`\`\`) in the code`
      }
    }
  }
  return null
}

function insideText(node: Node | null, start: number): boolean {
  for (let at = node; at !== null; at = at.parent) {
    if (at.isError) return false
    if (at.startIndex < start && TEXT_LIKE.test(at.type)) return true
  }
  return false
}

function lineAt(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
}
