import { clip, patchError } from '../../patch-error.js'

const MARKER = /^\^\^\^\s*(.*?)\s*$/
const FENCE = /^(```|~~~)/
const MARKDOWN = /\.(md|mdx|markdown|rst|txt|adoc)$/i
const SEND_WHOLE_FILE =
  'Reply with the complete new content of the file between "^^^<path>" and "^^^end" lines ' +
  '(or "^^^<path>" then "^^^delete" to delete it), with no markdown fences inside.'

type WholeFileBlock =
  { path: string; kind: 'replace'; lines: string[] } | { path: string; kind: 'delete' }

/**
 * Reads seed code-commit's replacement syntax: `^^^path`, the whole new content, `^^^end`
 * (an empty content makes an empty file), or `^^^path` followed directly by `^^^delete`. Prose
 * outside the blocks is ignored; content wrapped in a markdown fence inside a block is refused,
 * since the fence would become part of the file.
 */
export function parseWholeFile(reply: string): WholeFileBlock[] {
  const lines = reply.replace(/\r\n/g, '\n').split('\n')
  const blocks: WholeFileBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = MARKER.exec(lines[i]!)
    if (!open) continue
    const path = open[1]!.replace(/^`+|`+$/g, '')
    if (path === '' || path === 'end' || path === 'delete') {
      throw patchError(
        `Line ${i + 1} ("${clip(lines[i]!)}") closes a block that was never opened. ${SEND_WHOLE_FILE}`,
        { kind: 'unterminated-block', line: i + 1 }
      )
    }
    if (MARKER.exec(lines[i + 1] ?? '')?.[1] === 'delete') {
      blocks.push({ path, kind: 'delete' })
      i++
      continue
    }
    const end = lines.findIndex((line, k) => k > i && MARKER.test(line))
    if (end < 0 || MARKER.exec(lines[end]!)![1] !== 'end') {
      throw patchError(
        `The block for ${path} that starts at line ${i + 1} has no "^^^end" line after its content. ${SEND_WHOLE_FILE}`,
        { kind: 'unterminated-block', file: path, line: i + 1 }
      )
    }
    const content = lines.slice(i + 1, end)
    if (
      !MARKDOWN.test(path) &&
      content.length >= 2 &&
      FENCE.test(content[0]!) &&
      FENCE.test(content[content.length - 1]!)
    ) {
      throw patchError(
        `The content for ${path} is wrapped in a markdown fence ("${clip(content[0]!)}"), which would become part of the file. ${SEND_WHOLE_FILE}`,
        { kind: 'fenced-content', file: path, line: i + 2 }
      )
    }
    blocks.push({ path, kind: 'replace', lines: content })
    i = end
  }
  if (blocks.length === 0) {
    throw patchError(`The reply holds no "^^^<path>" block. ${SEND_WHOLE_FILE}`, {
      kind: 'no-edits'
    })
  }
  return blocks
}
