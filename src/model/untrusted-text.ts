import { randomUUID } from 'node:crypto'
import { redactPatterns } from '../secrets/index.js'

// Invisible to a reviewer, read by a model: zero-width, bidi controls and Unicode tags.
const HIDDEN =
  /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/gu
// eslint-disable-next-line no-control-regex -- control characters are what this strips
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g
const HTML_COMMENT = /<!--[\s\S]*?(-->|$)/g

export const MAX_ISSUE_CHARS = 32 * 1024

/**
 * Issue or plan text as it may enter a prompt: HTML comments, hidden and control characters
 * removed, secret-looking text redacted, then capped (after redaction, so no cut leaves half a
 * secret behind).
 */
export function sanitizeUntrusted(text: string, limit = MAX_ISSUE_CHARS): string {
  let clean = text.replace(/\r\n?/g, '\n')
  // Removing a comment or a hidden character can join the pieces of another: repeat until stable.
  for (let previous = ''; previous !== clean;) {
    previous = clean
    clean = clean.replace(HTML_COMMENT, '').replace(HIDDEN, '').replace(CONTROL, '')
  }
  clean = redactPatterns(clean)
  return clean.length > limit ? `${clean.slice(0, limit)}\n[… truncated]` : clean
}

/**
 * An issue title as it may enter a prompt: sanitized like a body, on one line, and unable to
 * open or close the untrusted block it is put in.
 */
export function sanitizeTitle(title: string): string {
  return sanitizeUntrusted(title, 500)
    .replace(/<\/?issue-(body|title)[^>]*>/gi, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/** Issue body text for the untrusted block: sanitized, with the block's own tags taken out. */
export function sanitizeBody(body: string, limit?: number): string {
  return sanitizeUntrusted(body, limit).replace(/<\/?issue-(body|title)[^>]*>/gi, '')
}

/**
 * A fenced block that the content cannot close early, whatever backticks it holds. Everything
 * fenced goes to the model or onto the issue, so secret-looking text in it is redacted first.
 */
export function fence(content: string, language = ''): string {
  const text = redactPatterns(content)
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks}${language}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${ticks}`
}

/**
 * Model or command text to post on an issue: hidden characters removed and the whole of it in
 * a code block, where markdown, HTML, images and @-mentions do nothing.
 */
export function fenceForComment(text: string): string {
  return fence(text.replace(HIDDEN, '').replace(CONTROL, ''), 'text')
}

/**
 * Untrusted text to print on a runner's log: workflow commands in it (`::add-mask::`,
 * `::set-output`, `::error file=…`) are not processed while it is printed.
 */
export function withoutWorkflowCommands(text: string, token: string = randomUUID()): string {
  return `::stop-commands::${token}\n${text}${text.endsWith('\n') ? '' : '\n'}::${token}::`
}
