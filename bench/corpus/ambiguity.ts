import { oldSide, type DiffHunk, type FileDiff } from './diff-model.js'

/**
 * Why a damaged diff's intent can no longer be recovered, or null when it can: the case's
 * expected result is then a refusal.
 *
 * - A removed line the file does not hold (hallucinated): the reply is not about this file as it is.
 * - A hunk that fits several places of the file, as its lines are written (a line whose
 *   indentation drifted read without its whitespace, a line with a typo matching anything), when
 *   its line numbers are gone or point as near to another of those places as to its own (unless
 *   it is the only one inside the span its intact header gives).
 */
export function unrecoverable(
  diff: readonly FileDiff[],
  before: Record<string, string>
): string | null {
  for (const file of diff) {
    const lines = splitLines(before[file.path]!)
    for (const [i, hunk] of file.hunks.entries()) {
      if (hunk.lines.some((line) => line.hallucinated))
        return `${file.path} hunk ${i + 1}: removes a line the file does not hold`
      const places = placesOf(hunk, lines)
      if (!places.includes(hunk.trueOldStart))
        throw new Error(`${file.path} hunk ${i + 1}: its own place does not match (builder bug)`)
      if (places.length < 2) continue
      if (hunk.bare !== null)
        return `${file.path} hunk ${i + 1}: no line numbers, fits ${places.length} places`
      // Numbers as git wrote them (context dropped since): the one place inside the header's span.
      const span = places.filter(
        (at) => at >= hunk.oldStart && at + oldSide(hunk).length <= hunk.oldStart + hunk.oldCount
      )
      if (hunk.header !== null && span.length === 1 && span[0] === hunk.trueOldStart) continue
      const distance = (at: number) => Math.abs(at - hunk.oldStart)
      const own = distance(hunk.trueOldStart)
      if (places.some((at) => at !== hunk.trueOldStart && distance(at) <= own))
        return `${file.path} hunk ${i + 1}: line ${hunk.oldStart} is as near another place it fits`
    }
  }
  return null
}

const loose = (text: string) => text.replace(/\s+/g, '')

function splitLines(content: string): string[] {
  const lines = content.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** The 1-based lines where the hunk's old side fits; a hunk with no old side fits everywhere. */
function placesOf(hunk: DiffHunk, file: readonly string[]): number[] {
  const expected = oldSide(hunk)
  const places: number[] = []
  for (let start = 0; start + expected.length <= file.length; start++) {
    const fits = expected.every(
      (line, k) =>
        line.damaged === true ||
        (line.drifted === true
          ? loose(line.text) === loose(file[start + k]!)
          : line.text === file[start + k])
    )
    if (fits) places.push(start + 1)
  }
  // A pure addition at the end of a file (old side empty) starts after the last line.
  if (expected.length === 0) places.push(file.length + 1)
  return places
}
