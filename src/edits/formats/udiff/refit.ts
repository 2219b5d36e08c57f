import { nonBlankLines, occurrences, occurrencesInFile, type FileIndex } from '../../file-index.js'
import { compareContext, isVersionOf, vocabularyOf } from '../../intent.js'
import { looseKey } from '../../line-match.js'
import type { DiffLine, Hunk } from '../../types.js'

/**
 * A hunk whose old side (context and removed lines) is nowhere in the file, rewritten to fit it
 * when one of two kinds of real-reply damage explains the difference and what is left still
 * matches exactly one place; otherwise the hunk as it was, for the locator to judge (and refuse).
 *
 * - Blank lines came and went: the old side's non-blank lines are together in one place of the
 *   file, with runs of blank lines of other lengths between them. The runs take the file's
 *   lengths; added lines keep their order among them.
 * - Lines of the file were marked as added where they stand: an added line identical to the
 *   file's line in its place, where the hunk's next unchanged or removed line does not fit, is
 *   that line, unchanged.
 * - The context on one side of the change was copied from elsewhere (or made up): the removed
 *   lines and the context on the other side are together in one place. The context that does
 *   not fit is dropped; the removed lines place the change.
 *
 * Whitespace inside lines is left to the locator, which matches loosely and reports it.
 */
export function refitHunk(hunk: Hunk, file: FileIndex, { endMayBeCut = false } = {}): Hunk {
  const old = hunk.lines.filter((line) => line.kind !== '+').map((line) => looseKey(line.text))
  if (old.length === 0 || occurrencesInFile(old, file).length > 0) return hunk
  // A reply that may stop inside this hunk may end in half a line: that is no context made up.
  const end = looseKey(hunk.lines[hunk.lines.length - 1]!.text)
  const trailingMayGo = !endMayBeCut || file.byLoose.has(end)
  return (
    stretchBlankRuns(hunk, file) ??
    addedAsContext(hunk, file) ??
    anchorOnRemoved(hunk, file, 'trailing') ??
    (trailingMayGo ? anchorOnRemoved(hunk, file, 'leading') : undefined) ??
    hunk
  )
}

const isBlankOld = (line: DiffLine) => line.kind !== '+' && looseKey(line.text) === ''
const blankContext = (): DiffLine => ({ kind: ' ', text: '', noEol: false })

function stretchBlankRuns(hunk: Hunk, file: FileIndex): Hunk | undefined {
  // Blank lines the hunk removes are part of the change: their runs may not stretch.
  if (hunk.lines.some((line) => line.kind === '-' && isBlankOld(line))) return undefined
  const anchors: DiffLine[] = []
  const gaps: DiffLine[][] = [[]]
  for (const line of hunk.lines) {
    if (line.kind === '+' || isBlankOld(line)) gaps[gaps.length - 1]!.push(line)
    else {
      anchors.push(line)
      gaps.push([])
    }
  }
  if (anchors.filter((line) => /[\p{L}\p{N}_]{2}/u.test(line.text)).length < 2) return undefined
  const nonBlank = nonBlankLines(file)
  const starts = occurrences(
    anchors.map((line) => looseKey(line.text)),
    nonBlank.loose,
    nonBlank.byLoose
  )
  if (starts.length !== 1) return undefined
  const at = nonBlank.at.slice(starts[0]!, starts[0]! + anchors.length)
  const additions = (gap: readonly DiffLine[]) => gap.filter((line) => line.kind === '+')
  const lines: DiffLine[] = [...additions(gaps[0]!)]
  anchors.forEach((anchor, j) => {
    lines.push(anchor)
    if (j === anchors.length - 1) return
    const blanks = at[j + 1]! - at[j]! - 1
    let used = 0
    for (const line of gaps[j + 1]!) {
      if (line.kind === '+') lines.push(line)
      else if (used < blanks) {
        lines.push(blankContext())
        used++
      }
    }
    for (; used < blanks; used++) lines.push(blankContext())
  })
  lines.push(...additions(gaps[anchors.length]!))
  return { ...hunk, lines }
}

/** The hunk with the added lines that are the file's own lines in their place made context. */
function addedAsContext(hunk: Hunk, file: FileIndex): Hunk | undefined {
  const first = hunk.lines.find((line) => line.kind !== '+')
  if (!first || !hunk.lines.some((line) => line.kind === '+')) return undefined
  const keys = hunk.lines.map((line) => looseKey(line.text))
  const nextOld = keys.map((_, k) => hunk.lines.findIndex((l, m) => m > k && l.kind !== '+'))
  const fits: DiffLine[][] = []
  for (const start of file.byLoose.get(looseKey(first.text)) ?? []) {
    let at = start - hunk.lines.findIndex((line) => line.kind !== '+')
    const lines: DiffLine[] = []
    let made = 0
    for (let k = 0; k < hunk.lines.length && at >= 0; k++) {
      const line = hunk.lines[k]!
      const here = file.loose[at]
      if (line.kind !== '+') {
        if (here !== keys[k]) break
        lines.push(line)
        at++
      } else if (
        keys[k] !== '' &&
        file.lines[at]?.trimEnd() === line.text.trimEnd() &&
        here !== keys[nextOld[k]!]
      ) {
        lines.push({ ...line, kind: ' ' })
        made++
        at++
      } else lines.push(line)
    }
    if (lines.length === hunk.lines.length && made > 0) fits.push(lines)
  }
  return fits.length === 1 ? { ...hunk, lines: fits[0]! } : undefined
}

/**
 * The hunk without its context on one side, when the rest (removed lines included) matches
 * exactly one place. Only the context beyond the outermost change goes: a line added among that
 * context has its place from it, and a hunk that needs it is not refitted.
 */
function anchorOnRemoved(hunk: Hunk, file: FileIndex, keep: 'leading' | 'trailing') {
  if (!hunk.lines.some((line) => line.kind === '-')) return undefined
  const first = hunk.lines.findIndex((line) => line.kind !== ' ')
  let last = hunk.lines.length - 1
  while (hunk.lines[last]!.kind === ' ') last--
  const kept = keep === 'trailing' ? hunk.lines.slice(last + 1) : hunk.lines.slice(0, first)
  if (!kept.some((line) => looseKey(line.text) !== '')) return undefined
  const lines = keep === 'trailing' ? hunk.lines.slice(first) : hunk.lines.slice(0, last + 1)
  const old = lines.filter((line) => line.kind !== '+').map((line) => looseKey(line.text))
  if (old.filter((key) => /[\p{L}\p{N}_]{2}/u.test(key)).length < 2) return undefined
  const found = occurrencesInFile(old, file)
  if (found.length !== 1) return undefined
  // The context that does not fit, beside the file's lines in its place: a copy slip there is
  // the locator's to judge (by its rules for typos); a line the reply wrote as its own version
  // of the file's (`while (**input_ptr)` for `while (**input)`) is part of the change and lands
  // as written; lines of other code, or lines the file has elsewhere, were copied from elsewhere,
  // and go.
  const dropped = keep === 'trailing' ? hunk.lines.slice(0, first) : hunk.lines.slice(last + 1)
  // Context that repeats a line the hunk removes was not copied from elsewhere: the reply keeps
  // the very line it removes (`-import builtins`, `+import ast`, ` import builtins` over a file
  // with one such line), so replace-or-insert is its guess to make, not ours.
  const removed = new Set(lines.filter((line) => line.kind === '-').map((l) => looseKey(l.text)))
  if (dropped.some((line) => looseKey(line.text) !== '' && removed.has(looseKey(line.text))))
    return undefined
  const from = keep === 'trailing' ? found[0]! - dropped.length : found[0]! + old.length
  const vocabulary = vocabularyOf(
    file.lines,
    hunk.lines.map((line) => line.text)
  )
  const theirs = (k: number) => file.lines[from + k] ?? ''
  const kinds = dropped.map((line, k) => {
    const how = compareContext(theirs(k), line.text, vocabulary)
    const elsewhere = file.byLoose.has(looseKey(line.text))
    return how === 'changed' && (elsewhere || !isVersionOf(theirs(k), line.text)) ? 'other' : how
  })
  if (kinds.includes('slip') || kinds.includes('unclear')) return undefined
  if (!kinds.includes('changed')) return { ...hunk, lines }
  if (from < 0 || kinds.includes('other')) return undefined
  const rewritten = dropped.flatMap((line, k): DiffLine[] =>
    kinds[k] === 'same'
      ? [line]
      : [
          { kind: '-', text: theirs(k), noEol: false },
          { kind: '+', text: line.text, noEol: line.noEol }
        ]
  )
  return {
    ...hunk,
    lines: keep === 'trailing' ? [...rewritten, ...lines] : [...lines, ...rewritten]
  }
}
