/** A text file as lines, remembering its line ending and whether it ends with one. */
export interface TextLines {
  lines: string[]
  eol: '\n' | '\r\n'
  finalNewline: boolean
}

export function splitText(content: string): TextLines {
  const crlf = (content.match(/\r\n/g)?.length ?? 0) * 2 > (content.match(/\n/g)?.length ?? 0)
  const eol = crlf ? '\r\n' : '\n'
  if (content === '') return { lines: [], eol, finalNewline: false }
  const finalNewline = content.endsWith('\n')
  const body = finalNewline ? content.slice(0, content.endsWith('\r\n') && crlf ? -2 : -1) : content
  const lines = body.split('\n').map((line) => (crlf ? line.replace(/\r$/, '') : line))
  return { lines, eol, finalNewline }
}

export function joinText({ lines, eol, finalNewline }: TextLines): string {
  if (lines.length === 0) return ''
  return lines.join(eol) + (finalNewline ? eol : '')
}
