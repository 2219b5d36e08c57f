import { editDistanceAtMost, isTypo, looseKey } from './line-match.js'

const WORD = /[\p{L}\p{N}_]+/gu

/** The words of a text: runs of letters, digits and underscores. */
const wordsOf = (text: string): string[] => text.match(WORD) ?? []

/** Every word the file and the reply's lines use, with how often: what a change may draw on. */
export type Vocabulary = Map<string, number>

export function vocabularyOf(...texts: readonly (readonly string[])[]): Vocabulary {
  const counts: Vocabulary = new Map()
  for (const lines of texts)
    for (const line of lines)
      for (const word of wordsOf(line)) counts.set(word, (counts.get(word) ?? 0) + 1)
  return counts
}

/**
 * How a line the reply gives as unchanged compares with the file's line in its place:
 * - `same`: equal, whitespace (inside the line too) aside;
 * - `slip`: a copy slip, which changes nothing the model meant: one or two characters off,
 *   making words that neither the file nor the rest of the reply uses (`debug` copied as `debux`)
 *   or single letters (`8.1.3` as `8.x.3`), which are no evidence of a meaning either way, or a
 *   rule of repeated signs miscounted (`~~~~` as `~~~~~`);
 * - `unclear`: what would be a copy slip in a line too short to tell one from a change: one
 *   character off, making only such meaningless words (`"os"` as `"ox"`, `#[inline]` as
 *   `#[inlixe]`). Neither the file's line nor the reply's can be landed: the hunk is refused.
 * - `changed`: anything else. The model wrote the line its way (`while (**input_ptr)` where the
 *   file says `while (**input)`, `>=` where it says `>`), so its version is part of the change.
 *
 * `vocabulary` counts the words of the file and of the reply's lines, this line included.
 */
export function compareContext(
  fileLine: string,
  replyLine: string,
  vocabulary: Vocabulary
): 'same' | 'slip' | 'unclear' | 'changed' {
  const theirs = looseKey(fileLine)
  const mine = looseKey(replyLine)
  // Spacing inside the line (`a=b` as `a = b`) is how the model remembered it, not a change.
  if (theirs.replace(/\s/g, '') === mine.replace(/\s/g, '')) return 'same'
  const long = isTypo(theirs, mine)
  const short = !long && theirs !== '' && mine !== '' && editDistanceAtMost(theirs, mine, 1)
  if (!long && !short) return 'changed'
  if (long && runsCollapsed(theirs) === runsCollapsed(mine)) return 'slip'
  const added = newWords(wordsOf(theirs), wordsOf(mine))
  if (added.length === 0) return 'changed'
  // A new number is meant (`retries = 5`); the line itself accounts for one use of each word.
  const meaningless = (word: string) =>
    /\p{L}/u.test(word) && (word.length === 1 || (vocabulary.get(word) ?? 0) <= 1)
  if (!added.every(meaningless)) return 'changed'
  return long ? 'slip' : 'unclear'
}

/** A line with each run of three or more of one sign shortened to three: what miscounting leaves alike. */
const runsCollapsed = (line: string) => line.replace(/([^\p{L}\p{N}_\s])\1{2,}/gu, '$1$1$1')

/** Words of `mine` beyond those of `theirs` (as multisets). */
function newWords(theirs: readonly string[], mine: readonly string[]): string[] {
  const left = new Map<string, number>()
  for (const word of theirs) left.set(word, (left.get(word) ?? 0) + 1)
  return mine.filter((word) => {
    const n = left.get(word) ?? 0
    if (n > 0) left.set(word, n - 1)
    return n === 0
  })
}

/**
 * Whether a line reads as a version of another (most of their words and signs shared), not a
 * different line: `while (**input_ptr) {` is a version of `while (**input) {`; `}` is not a
 * version of `return x;`.
 */
export function isVersionOf(fileLine: string, replyLine: string): boolean {
  const tokens = (text: string) => looseKey(text).match(/[\p{L}\p{N}_]+|\S/gu) ?? []
  const a = tokens(fileLine)
  const b = tokens(replyLine)
  if (a.length === 0 || b.length === 0) return false
  const shared = a.length + b.length - newWords(a, b).length - newWords(b, a).length
  return shared / (a.length + b.length) >= 0.6 && wordsOf(fileLine).length > 0
}
