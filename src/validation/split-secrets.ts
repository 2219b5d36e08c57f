import ansiRegex from 'ansi-regex'

// eslint-disable-next-line no-control-regex -- control characters are what splits a secret
const CONTROL = /[\u0000-\u001f\u007f]/
const BACKSPACE = '\b'

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
  for (const eraseOnBackspace of [false, true]) {
    const { view, origin } = reading(text, skipped, eraseOnBackspace)
    for (const value of values) {
      for (let at = view.indexOf(value); at >= 0; at = view.indexOf(value, at + 1))
        spans.push([origin[at]!, origin[at + value.length - 1]! + 1])
    }
  }
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

/** Indexes of characters inside ANSI escape sequences. */
function escapeSequences(text: string): Set<number> {
  const skipped = new Set<number>()
  for (const match of text.matchAll(ansiRegex()))
    for (let i = match.index; i < match.index + match[0].length; i++) skipped.add(i)
  return skipped
}

/** The visible characters of `text` and, for each, its index in `text`. */
function reading(
  text: string,
  skipped: ReadonlySet<number>,
  eraseOnBackspace: boolean
): { view: string; origin: number[] } {
  const chars: string[] = []
  const origin: number[] = []
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (skipped.has(i)) continue
    if (char === BACKSPACE && eraseOnBackspace) {
      chars.pop()
      origin.pop()
      continue
    }
    if (CONTROL.test(char)) continue
    chars.push(char)
    origin.push(i)
  }
  return { view: chars.join(''), origin }
}
