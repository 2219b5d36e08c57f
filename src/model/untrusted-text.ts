import { randomUUID } from 'node:crypto'
import { redactPatterns } from '../secrets/index.js'

// Invisible to a reviewer, read by a model: zero-width, bidi controls and Unicode tags.
const HIDDEN =
  /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/gu
// eslint-disable-next-line no-control-regex -- control characters are what this strips
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g
const HTML_COMMENT = /<!--[\s\S]*?(-->|$)/g

const MAX_ISSUE_CHARS = 32 * 1024

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
 * `::set-output`, `::error file=…`, `##[set-output …]`) are not processed while it is printed.
 */
export function withoutWorkflowCommands(text: string, token: string = randomUUID()): string {
  return `::stop-commands::${token}\n${text}${text.endsWith('\n') ? '' : '\n'}::${token}::`
}

/**
 * Where the runner would read a workflow command in a line it logs. It splits lines at CR and LF
 * (the other Unicode line breaks are taken as breaks here too) and trims each line with .NET's
 * whitespace set before it looks for `::` (U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
 * U+2029, U+202F, U+205F, U+3000 besides ASCII: JavaScript's `\s` misses U+0085); format and
 * control characters are skipped too, in case a runner's decoding drops them. The older form
 * `##[command]` is read anywhere in a line.
 */
const COMMAND_AT_LINE_START = /(^|[\r\n\u0085\u2028\u2029])[\p{White_Space}\p{Cf}\p{Cc}]*::/u
const OLDER_FORM = '##['

/** Whether the runner could take a line of `text` as a workflow command. */
export function mayRunWorkflowCommand(text: string): boolean {
  return COMMAND_AT_LINE_START.test(text) || text.includes(OLDER_FORM)
}

/**
 * Log text as it may reach the runner: fenced when a line of it could run a workflow command,
 * ending in a line break when the text did (so what is written next starts a line of its own).
 */
export function inertForLog(text: string): string {
  if (!mayRunWorkflowCommand(text)) return text
  return `${withoutWorkflowCommands(text)}${text.endsWith('\n') ? '\n' : ''}`
}

/**
 * JSON printed where the runner reads it: the same value, with `##[` written `##\u005b` and the
 * Unicode line breaks as escapes, so no line of it can be read as a command (a JSON line starts
 * with whitespace and a quote or bracket, never with `::`).
 */
export function inertJson(json: string): string {
  return json
    .replaceAll(OLDER_FORM, '##\\u005b')
    .replace(
      /[\u0085\u2028\u2029]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
    )
}

/** The end of a text within `limit` characters, saying how much was cut (a command's output). */
export function tail(text: string, limit: number | undefined): string {
  if (limit === undefined || text.length <= limit) return text
  return `[… ${text.length - limit} characters cut]\n${text.slice(-limit)}`
}
