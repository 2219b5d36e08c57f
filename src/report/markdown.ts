/** Small pieces for Markdown that stays valid whatever text it holds. */

/**
 * Untrusted text (an issue, a plan, a model reply, a test's output) as inert Markdown on one line
 * or inside a sentence: the signs that open a link, an image, emphasis, code, a tag or a table
 * cell escaped, so it renders as the characters it holds; and what GitHub reads in rendered text (mentions, issue references,
 * closing keywords, bare URLs) broken by a zero-width space, so it notifies, links and closes
 * nothing.
 */
export function inert(text: string): string {
  return unlinked(defuse(text))
    .replace(/&/g, '&amp;')
    .replace(/[\\`*_[\]|<>~]/g, (sign) => `\\${sign}`)
    .replace(BLOCK_START, (_, start: string, sign: string) =>
      /^\d/.test(sign) ? `${start}${sign.slice(0, -1)}\\${sign.slice(-1)}` : `${start}\\${sign}`
    )
}

// What opens a block at a line's start, indented any way (in a list item, four spaces or a tab
// in still open one): a heading, a list item, a setext underline or a rule; its first sign
// escaped, the line stays a line of text ("#7" opens nothing; `>` and `*` are escaped already).
const BLOCK_START =
  /^([ \t]*)(#{1,6}(?=[ \t]|$)|[-+](?=[ \t]|$)|=+(?=[ \t]*$)|-(?=-)|\d{1,9}[.)](?=[ \t]|$))/gm

// CommonMark ends a line at LF, CR LF and a lone CR alike: inside a table row or a code span
// any of them ends the row or the paragraph, and what follows renders as Markdown.
const LINE_END = /\r\n?|\n/g

/** A table cell: untrusted text made inert (inert), line breaks flattened. */
export function cell(text: string): string {
  return inert(text).replace(LINE_END, ' ')
}

// GitHub links "#7", "acme/widgets#8" and "GH-7" in rendered text, and an autolink extension
// links "https://…", "www.…", "mailto:…", "xmpp:…" and "a@b.c" outside code, also right after a
// letter, a digit or an underscore ("_https://…", "x_www.…"); other renderers link a
// protocol-relative "//host/…" too: so every "://", "//", "www.", "mailto:" and "xmpp:" is
// broken, wherever it is.
const REFERENCE = /(#|GH-)(?=\d)/gi
const BARE_URL = /(:)(\/\/)|(www)(\.)|(mailto|xmpp)(:)/gi

function unlinked(text: string): string {
  return text
    .replace(REFERENCE, '$1\u200b')
    .replace(BARE_URL, '$1$3$5\u200b$2$4$6')
    .replace(/\/\//g, '/\u200b/')
}

// A closing keyword before an issue reference ("Fixes #7", "closes acme/widgets#8").
// A closing keyword before an issue: "Fixes #7", "closes acme/widgets#8", "Fixes:#9", or the
// issue's page "resolves https://github.com/acme/widgets/issues/7".
const CLOSING =
  /\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(\s*:?\s*)((?:[\w.-]+\/[\w.-]+)?#|https?:\/\/\S+?\/(?:issues|pull)\/)(?=\d)/gi

/** Code a person reads: nothing in it may close an issue when the page is merged. */
function unclosing(text: string): string {
  return text.replace(CLOSING, '$1$2$3\u200b')
}

/**
 * Inline code that cannot be closed early by backticks inside it. Pipes are escaped: in a GFM
 * table they would end the cell even inside code.
 */
export function code(text: string): string {
  const flat = unclosing(text).replace(LINE_END, ' ').replace(/\|/g, '\\|')
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length))
  const ticks = '`'.repeat(longest + 1)
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : ''
  return `${ticks}${pad}${flat}${pad}${ticks}`
}

/** A fenced block whose fence is longer than any backtick run in the text. */
export function fence(text: string, info = 'text'): string {
  text = unclosing(text)
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

function escapeHtml(text: string): string {
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
