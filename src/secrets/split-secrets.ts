import ansiRegex from 'ansi-regex'

// eslint-disable-next-line no-control-regex -- control characters are what splits a secret
const CONTROL = /[\u0000-\u001f\u007f]/
const BACKSPACE = 8

/**
 * Known secrets printed with something invisible inside them (a line break, an escape sequence,
 * a NUL, backspaces) that a plain search misses. Two readings of the text are searched, one
 * without any control character or escape sequence and one as a terminal shows it (a backspace
 * erases the character before it); each hit masks the whole stretch of the original it spans.
 * Written here because no maintained library maps such matches back to the original text.
 */
export function maskSplitSecrets(
  text: string,
  values: readonly string[],
  replacement = '***'
): string {
  if (!CONTROL.test(text) || values.length === 0) return text
  const skipped = escapeSequences(text)
  const spans: Array<[number, number]> = []
  for (const eraseOnBackspace of text.includes('\b') ? [false, true] : [false]) {
    const { view, origin } = reading(text, skipped, eraseOnBackspace)
    for (const value of values) {
      for (let at = view.indexOf(value); at >= 0; at = view.indexOf(value, at + 1))
        spans.push([origin[at]!, origin[at + value.length - 1]! + 1])
    }
  }
  return replaceSpans(text, spans, replacement)
}

/** Each stretch `[start, end)` of `text` replaced (overlapping stretches once). */
export function replaceSpans(
  text: string,
  spans: Array<[number, number]>,
  replacement = '***'
): string {
  if (spans.length === 0) return text
  spans.sort((a, b) => a[0] - b[0])
  let out = ''
  let cursor = 0
  for (const [start, end] of spans) {
    if (end <= cursor) continue
    out += text.slice(cursor, Math.max(cursor, start)) + (start >= cursor ? replacement : '')
    cursor = end
  }
  return out + text.slice(cursor)
}

/** Which characters are inside ANSI escape sequences. */
function escapeSequences(text: string): Uint8Array {
  const skipped = new Uint8Array(text.length)
  if (!text.includes('\u001b')) return skipped
  for (const match of text.matchAll(ansiRegex()))
    skipped.fill(1, match.index, match.index + match[0].length)
  return skipped
}

/** The visible characters of `text` and, for each, its index in `text`. */
function reading(
  text: string,
  skipped: Uint8Array,
  eraseOnBackspace: boolean
): { view: string; origin: Int32Array } {
  const chars = new Uint16Array(text.length)
  const origin = new Int32Array(text.length)
  let length = 0
  for (let i = 0; i < text.length; i++) {
    if (skipped[i]) continue
    const code = text.charCodeAt(i)
    if (code === BACKSPACE && eraseOnBackspace) {
      if (length > 0) length--
      continue
    }
    if (code < 0x20 || code === 0x7f) continue
    chars[length] = code
    origin[length++] = i
  }
  let view = ''
  for (let i = 0; i < length; i += 8192)
    view += String.fromCharCode(...chars.subarray(i, Math.min(length, i + 8192)))
  return { view, origin }
}
