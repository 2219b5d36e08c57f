// Invisible to a reviewer, read by a model: zero-width, bidi controls and Unicode tags.
const HIDDEN = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/gu
const HTML_COMMENT = /<!--[\s\S]*?(-->|$)/g

export const MAX_ISSUE_CHARS = 32 * 1024

/** Issue text as it may enter a prompt: hidden characters and HTML comments removed, capped. */
export function sanitizeUntrusted(text: string, limit = MAX_ISSUE_CHARS): string {
  const clean = text.replace(HTML_COMMENT, '').replace(HIDDEN, '')
  return clean.length > limit ? `${clean.slice(0, limit)}\n[… truncated]` : clean
}

/** A fenced block that the content cannot close early, whatever backticks it holds. */
export function fence(content: string, language = ''): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks}${language}\n${content}${content.endsWith('\n') || content === '' ? '' : '\n'}${ticks}`
}
