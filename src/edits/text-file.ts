/**
 * A text file as lines, each with its own line ending, so lines an edit does not touch keep their
 * bytes exactly (a file with mixed endings stays mixed). `eol` is the file's usual ending, given
 * to new lines.
 */
interface TextLines {
  lines: string[]
  /** Per line: '\n', '\r\n', or '' for a last line without a final newline. */
  ends: string[]
  eol: '\n' | '\r\n'
  finalNewline: boolean
}

export function splitText(content: string, fallbackEol: '\n' | '\r\n' = '\n'): TextLines {
  if (content === '') return { lines: [], ends: [], eol: fallbackEol, finalNewline: false }
  const lines: string[] = []
  const ends: string[] = []
  let crlf = 0
  let start = 0
  while (start < content.length) {
    const newline = content.indexOf('\n', start)
    if (newline < 0) {
      lines.push(content.slice(start))
      ends.push('')
      break
    }
    const cr = newline > start && content.charCodeAt(newline - 1) === 13
    if (cr) crlf++
    lines.push(content.slice(start, cr ? newline - 1 : newline))
    ends.push(cr ? '\r\n' : '\n')
    start = newline + 1
  }
  const counted = ends.length - (ends[ends.length - 1] === '' ? 1 : 0)
  const eol = counted === 0 ? fallbackEol : crlf * 2 > counted ? '\r\n' : '\n'
  return { lines, ends, eol, finalNewline: ends[ends.length - 1] !== '' }
}

export function joinText({ lines, ends }: Pick<TextLines, 'lines' | 'ends'>): string {
  let text = ''
  for (let i = 0; i < lines.length; i++) text += lines[i]! + ends[i]!
  return text
}

/** Text the model wrote (any line endings) as lines for a file with the given conventions. */
export function linesOf(text: string): string[] {
  const body = text.replace(/\r\n?/g, '\n')
  if (body === '') return []
  return (body.endsWith('\n') ? body.slice(0, -1) : body).split('\n')
}

/** Whole new contents from lines, with one line ending throughout. */
export function contentOf(lines: readonly string[], eol: string, finalNewline: boolean): string {
  if (lines.length === 0) return ''
  return lines.join(eol) + (finalNewline ? eol : '')
}
