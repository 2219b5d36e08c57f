/**
 * Characters that change how code reads without being seen (Trojan Source, CVE-2021-42574;
 * invisible identifiers; ASCII smuggling in tag characters or variation selectors). In code every
 * one of them is refused, but for the few uses that are text in a string or comment: an emoji
 * joined by U+200D, one variation selector after a pictograph (❤️) or in a keycap, and a byte
 * order mark opening the file. In files whose text is content (unicode-text-paths: prose,
 * translations) they are writing, not tricks: there only what hides text or spoofs its order
 * anywhere is refused.
 */

// Every format character (bidi controls and marks, zero-width space, joiners, word joiner,
// invisible operators, soft hyphen, BOM, tags, interlinear annotations, ...) and the invisible
// characters that are not in Cf: combining grapheme joiner, Hangul and Khmer fillers, Mongolian
// and standard variation selectors, line and paragraph separators.
const HIDDEN =
  // eslint-disable-next-line no-misleading-character-class -- each is matched on its own, on purpose
  /[\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2028\u2029\u3164\uffa0\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu
// Refused in content too: bidi overrides (they reorder what is shown, not just mark direction),
// interlinear annotations (their text is not shown) and tag characters outside an emoji flag.
const HIDDEN_IN_TEXT = /[\u202d\u202e\ufff9-\ufffb\u{e0000}-\u{e007f}]/u
const VARIATION_SELECTOR = /[\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u
const PICTOGRAPH = /\p{Extended_Pictographic}/u
const SKIN_TONE = /[\u{1f3fb}-\u{1f3ff}]/u
const ZWJ = '\u200d'
const BOM = '\ufeff'
// A subdivision flag (England: black flag, g b e n g, cancel tag) is the one use of tags.
const FLAG_SEQUENCE = /\u{1f3f4}[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{2,7}\u{e007f}/gu

interface HiddenCharacter {
  /** Index in the text (UTF-16). */
  index: number
  /** `U+200D` */
  codePoint: string
}

/**
 * The first character of `text` that would hide or reorder what a reviewer sees. `content`: the
 * file's text is content (prose, translations); `fileStart`: `text` opens the file.
 */
export function findHiddenCharacter(
  text: string,
  options: { content: boolean; fileStart: boolean }
): HiddenCharacter | undefined {
  const flags = flagRanges(text)
  for (const match of text.matchAll(HIDDEN)) {
    const index = match.index
    const char = match[0]
    if (allowed(text, index, char, options, flags)) continue
    const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
    return { index, codePoint: `U+${code}` }
  }
  return undefined
}

function allowed(
  text: string,
  index: number,
  char: string,
  options: { content: boolean; fileStart: boolean },
  flags: ReadonlyArray<[number, number]>
): boolean {
  const inFlag = flags.some(([start, end]) => start <= index && index < end)
  if (inFlag) return options.content
  if (char === BOM && index === 0 && options.fileStart) return true
  const before = codePointBefore(text, index)
  if (VARIATION_SELECTOR.test(char)) {
    // A run of selectors carries data (one byte each), in any file.
    if (before !== undefined && VARIATION_SELECTOR.test(before)) return false
    if (options.content) return true
    const keycap = /^[#*0-9]$/.test(before ?? '') && text[index + char.length] === '\u20e3'
    return keycap || (before !== undefined && PICTOGRAPH.test(before))
  }
  if (HIDDEN_IN_TEXT.test(char)) return false
  if (options.content) return true
  return char === ZWJ && joinsEmoji(text, index)
}

/** U+200D between two pictographs (a skin tone or an emoji selector may follow the first). */
function joinsEmoji(text: string, index: number): boolean {
  let at = index
  let before = codePointBefore(text, at)
  while (before !== undefined && (before === '\ufe0f' || SKIN_TONE.test(before))) {
    at -= before.length
    before = codePointBefore(text, at)
  }
  const after = String.fromCodePoint(text.codePointAt(index + 1) ?? 0)
  return before !== undefined && PICTOGRAPH.test(before) && PICTOGRAPH.test(after)
}

function codePointBefore(text: string, index: number): string | undefined {
  if (index === 0) return undefined
  const low = text.charCodeAt(index - 1)
  const start = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? index - 2 : index - 1
  return String.fromCodePoint(text.codePointAt(start)!)
}

function flagRanges(text: string): Array<[number, number]> {
  if (!text.includes('\u{1f3f4}')) return []
  return [...text.matchAll(FLAG_SEQUENCE)].map((match) => [
    match.index,
    match.index + match[0].length
  ])
}
