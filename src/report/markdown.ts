/** Small pieces for Markdown that stays valid whatever text it holds. */

/** A table cell: pipes escaped, line breaks flattened, HTML and mentions defused. */
export function cell(text: string): string {
  return defuse(text)
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, ' ')
    .replace(/</g, '&lt;')
}

/**
 * Inline code that cannot be closed early by backticks inside it. Pipes are escaped: in a GFM
 * table they would end the cell even inside code.
 */
export function code(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|')
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length))
  const ticks = '`'.repeat(longest + 1)
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : ''
  return `${ticks}${pad}${flat}${pad}${ticks}`
}

/** A fenced block whose fence is longer than any backtick run in the text. */
export function fence(text: string, info = 'text'): string {
  const longest = Math.max(2, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length))
  const marks = '`'.repeat(longest + 1)
  const body = text.endsWith('\n') ? text : `${text}\n`
  return `${marks}${info}\n${body}${marks}`
}

/** A table from a header row and body rows (cells already formatted). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

/** A collapsed section; blank lines around the content so Markdown inside it renders. */
export function details(summary: string, content: string): string {
  return `<details><summary>${escapeHtml(summary)}</summary>\n\n${content}\n\n</details>`
}

/** Mentions and references that would notify people or link elsewhere, made inert. */
export function defuse(text: string): string {
  return text.replace(/@(?=[A-Za-z0-9])/g, '@\u200b')
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** The last lines of a text, at most `maxChars` characters. */
export function tail(text: string, maxLines: number, maxChars: number): string {
  const lines = text.replace(/\s+$/, '').split('\n')
  let kept = lines.slice(-maxLines).join('\n')
  if (kept.length > maxChars) kept = kept.slice(-maxChars)
  const cut = kept.length < text.trim().length
  return cut ? `[… earlier output cut]\n${kept}` : kept
}

export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`
}
