/** A line with its whitespace collapsed: what indentation drift and lost spaces leave alike. */
export const looseKey = (line: string): string => line.replace(/\s+/g, ' ').trim()

/** How a line of the reply compares with a line of the file. */
type LineFit = 'exact' | 'trailing' | 'whitespace' | 'typo' | 'none'

export function fitLine(
  file: string,
  reply: string,
  fileLoose: string,
  replyLoose: string
): LineFit {
  if (file === reply) return 'exact'
  if (fileLoose !== replyLoose) return isTypo(fileLoose, replyLoose) ? 'typo' : 'none'
  return file.trimEnd() === reply.trimEnd() ? 'trailing' : 'whitespace'
}

/**
 * A context line written from memory: the file's line with its spacing inside the line changed
 * (`a=b` as `a = b`), or with one word (an identifier, a number, the words of a string) written
 * otherwise, every other word and sign the same and in order (`count(list)` as `count(items)`).
 * An operator or a sign written otherwise is a different line (`>` as `>=`).
 */
export function isMisremembered(fileLoose: string, replyLoose: string): boolean {
  if (fileLoose.replace(/\s/g, '') === replyLoose.replace(/\s/g, '')) return true
  const tokens = (text: string) => text.match(/[\p{L}\p{N}_]+|\S/gu) ?? []
  const a = tokens(fileLoose)
  const b = tokens(replyLoose)
  if (a.length !== b.length || a.length < 3) return false
  const differing = a.flatMap((token, k) => (token === b[k] ? [] : [k]))
  const word = /^[\p{L}\p{N}_]+$/u
  return differing.length === 1 && word.test(a[differing[0]!]!) && word.test(b[differing[0]!]!)
}

/**
 * A copy slip in a context line: one or two characters changed, added or dropped in a line long
 * enough that such a slip cannot turn it into a different short line (`},` into `],`).
 */
export function isTypo(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length)
  if (length < 12 || a === '' || b === '') return false
  return editDistanceAtMost(a, b, length < 24 ? 1 : 2)
}

/** Whether the Levenshtein distance of a and b is at most k (banded, O(k·n)). */
export function editDistanceAtMost(a: string, b: string, k: number): boolean {
  if (Math.abs(a.length - b.length) > k) return false
  const width = 2 * k + 1
  let previous = new Array<number>(width).fill(Infinity)
  let current = new Array<number>(width).fill(Infinity)
  // Band cell d stands for column j = i + d - k.
  for (let d = k; d < width; d++) previous[d] = d - k
  for (let i = 1; i <= a.length; i++) {
    current.fill(Infinity)
    let best = Infinity
    for (let d = 0; d < width; d++) {
      const j = i + d - k
      if (j < 0 || j > b.length) continue
      if (j === 0) {
        current[d] = i
      } else {
        const substitute = previous[d]! + (a[i - 1] === b[j - 1] ? 0 : 1)
        const insert = d > 0 ? current[d - 1]! + 1 : Infinity
        const remove = d + 1 < width ? previous[d + 1]! + 1 : Infinity
        current[d] = Math.min(substitute, insert, remove)
      }
      if (current[d]! < best) best = current[d]!
    }
    if (best > k) return false
    ;[previous, current] = [current, previous]
  }
  const end = b.length - a.length + k
  return end >= 0 && end < width && previous[end]! <= k
}
