import { InvalidDiffError } from '../contract/index.js'
import {
  hintDistance,
  indexLines,
  isWeak,
  locate,
  type FileIndex,
  type HintTrust
} from './locate.js'
import { shiftedToFile } from './indent-shift.js'
import { compareContext, vocabularyOf, type Vocabulary } from './intent.js'
import { patchError, quote } from './patch-error.js'
import { joinText, splitText } from './text-file.js'
import type { Hunk, HunkPlacement, Placement } from './types.js'

interface AppliedText {
  content: string
  placements: Placement[]
  located: HunkPlacement[]
}

interface ApplyOptions {
  /** Hunks of other files of the same reply were found away from their line numbers. */
  numbersContradicted?: boolean
  /** Line ending for an empty or new file's lines (default '\n'). */
  eol?: '\n' | '\r\n'
  /** Whether an empty or new file ends with a newline when the reply does not say (default true). */
  finalNewline?: boolean
  /** The index of `before`'s lines, when the caller built it for the file's other steps. */
  index?: FileIndex
}

/**
 * Applies hunks to a file's contents. Every hunk is located on its own in the original text (in
 * any order; see `locate`), then all changes are made at once, line by line: hunks may share
 * context lines, but a line one hunk removes may not be another's context, and two hunks may not
 * insert at the same place. Untouched lines keep their own line endings.
 */
export function applyHunks(
  path: string,
  before: string,
  hunks: readonly Hunk[],
  options: ApplyOptions = {}
): AppliedText {
  const file = splitText(before, options.eol)
  const index = options.index ?? indexLines(file.lines)
  const n = file.lines.length
  const removedBy = new Int32Array(n + 1)
  const keptBy = new Int32Array(n + 1)
  const inserts = new Map<number, { hunk: number; lines: { text: string; noEol: boolean }[] }>()
  const located: HunkPlacement[] = []
  let touchesEnd = false
  let endHunk: Hunk | undefined
  const starts = placeAll(path, index, hunks, options.numbersContradicted === true)
  const vocabulary = vocabularyOf(
    file.lines,
    hunks.flatMap((hunk) => hunk.lines.map((line) => line.text))
  )
  hunks.forEach((given, i) => {
    const number = given.number ?? i + 1
    const { at, ...placement } = starts[i]!
    const hunk = withChangedContext(path, shiftedToFile(given, file.lines, at), file.lines, {
      at,
      number,
      vocabulary,
      byHint: placement.how === 'hint'
    })
    located.push(placement)
    let j = at
    for (const line of hunk.lines) {
      if (line.kind === '+') {
        const slot = inserts.get(j)
        if (slot && slot.hunk !== number) throw overlap(path, slot.hunk, number, j)
        if (slot) slot.lines.push({ text: line.text, noEol: line.noEol })
        else inserts.set(j, { hunk: number, lines: [{ text: line.text, noEol: line.noEol }] })
        continue
      }
      if (line.kind === '-') {
        if (removedBy[j] || keptBy[j]) throw overlap(path, removedBy[j] || keptBy[j], number, j)
        removedBy[j] = number
      } else {
        if (removedBy[j]) throw overlap(path, removedBy[j]!, number, j)
        keptBy[j] = number
      }
      j++
    }
    if (j === n) {
      touchesEnd = true
      endHunk = hunk
    }
  })

  const lines: string[] = []
  const ends: string[] = []
  const eol = file.eol
  for (let i = 0; i <= n; i++) {
    for (const added of inserts.get(i)?.lines ?? []) {
      lines.push(added.text)
      ends.push(added.noEol ? '' : eol)
    }
    if (i < n && !removedBy[i]) {
      lines.push(file.lines[i]!)
      ends.push(file.ends[i]!)
    }
  }
  // Only the last line may lack an ending; whether it has one is the file's, unless the reply
  // says otherwise with "\ No newline at end of file" in a hunk that reaches the end.
  for (let i = 0; i < ends.length - 1; i++) if (ends[i] === '') ends[i] = eol
  if (ends.length > 0) {
    const wasEmpty = n === 0
    let finalNewline = wasEmpty ? (options.finalNewline ?? true) : file.finalNewline
    if (touchesEnd && endHunk) finalNewline = endsWithNewline(endHunk, finalNewline)
    ends[ends.length - 1] = finalNewline ? ends[ends.length - 1] || eol : ''
  }
  return {
    content: joinText({ lines, ends }),
    placements: located.map((place) => place.how),
    located
  }
}

/**
 * Where every hunk's old lines start. Hunks that match in one place are placed first; their
 * line numbers then tell how far the reply's numbers can be trusted to settle the hunks that
 * match in several places (see `HintTrust`).
 */
function placeAll(
  path: string,
  index: FileIndex,
  hunks: readonly Hunk[],
  contradictedElsewhere: boolean,
  probe = false
): (HunkPlacement & { at: number })[] & { trust?: HintTrust } {
  const n = index.lines.length
  const placed: (HunkPlacement & { at: number })[] = new Array(hunks.length)
  const window = (hunk: Hunk) => {
    const old = hunk.lines.filter((line) => line.kind !== '+').length
    return {
      hint: hunk.oldStart === null ? null : Math.max(0, hunk.oldStart - 1),
      slack: Math.max(0, (hunk.oldCount ?? old) - old)
    }
  }
  const place = (hunk: Hunk, i: number, hintTrust: HintTrust) => {
    const number = hunk.number ?? i + 1
    const old = hunk.lines.filter((line) => line.kind !== '+')
    if (old.length === 0) {
      const at = placeWithoutContext(path, n, hunk, number, hintTrust)
      const how = n === 0 ? 'exact' : 'hint'
      placed[i] = { at, hunk: number, line: at + 1, how, whitespaceLines: 0, fuzzyLines: 0 }
      return
    }
    const where = locate(index, {
      path,
      number,
      noun: 'Hunk',
      old: old.map((line) => ({ text: line.text, removed: line.kind === '-' })),
      ...window(hunk),
      hintTrust,
      allowTypos: true,
      weakNeedsHint: true
    })
    placed[i] = { ...where, hunk: number, line: where.at + 1 }
  }
  const deferred: number[] = []
  hunks.forEach((hunk, i) => {
    // Hunks that only a line number can place wait until the other hunks have tested the numbers.
    const old = hunk.lines.filter((line) => line.kind !== '+')
    if (n > 0 && (old.length === 0 || isWeak(old))) {
      deferred.push(i)
      return
    }
    try {
      place(hunk, i, 'contradicted')
    } catch (error) {
      if (!(error instanceof InvalidDiffError)) throw error
      if (error.details.rule === 'ambiguous-hunk') deferred.push(i)
      else if (!probe) throw error
    }
  })
  const numbered = hunks
    .map((hunk, i) => ({ hunk, where: placed[i], ...window(hunk) }))
    .filter((h) => h.where && h.hint !== null && h.hunk.lines.some((l) => l.kind !== '+'))
  const trust: HintTrust =
    contradictedElsewhere || numbered.some((h) => hintDistance(h.where!.at, h.hint!, h.slack) !== 0)
      ? 'contradicted'
      : numbered.length > 0
        ? 'verified'
        : 'unverified'
  if (probe) return Object.assign(placed, { trust })
  for (const i of deferred) place(hunks[i]!, i, trust)
  return placed
}

/**
 * What a file's hunks that match one place say about the reply's line numbers, without
 * applying anything: one reply that numbers one file wrong is not trusted to number the next.
 */
export function probeLineNumbers(index: FileIndex, hunks: readonly Hunk[]): HintTrust {
  return placeAll('', index, hunks, false, true).trust ?? 'unverified'
}

/** Lines added with no context at all: only an empty file, or a line number, can place them. */
function placeWithoutContext(
  path: string,
  n: number,
  hunk: Hunk,
  number: number,
  trust: HintTrust
): number {
  if (n === 0) return 0
  // `@@ -k,0 +…` adds after old line k, when the reply's other hunks showed its numbers right.
  // (`-0,0` on a file that has lines is a reply that thinks the file is new: refused.)
  const start = hunk.oldStart
  if (trust === 'verified' && start !== null && start > 0 && start <= n) return start
  throw patchError(
    `Hunk ${number} for ${path} adds lines without any unchanged line around them, so its place is unknown; ` +
      'include the 2-3 lines before and after the addition as context.',
    { kind: 'no-context', file: path, hunk: number }
  )
}

/**
 * The hunk with every unchanged line the reply wrote differently from the file (beyond whitespace
 * and copy slips, see `compareContext`) turned into a change to the reply's version: the model's
 * whole intent lands, never the file's line in place of one it changed. A hunk that only a line
 * number placed among several matches is no place to land such a change: it is refused. So is a
 * short line one character off that reads as a slip or as a change alike (`unclear`).
 */
function withChangedContext(
  path: string,
  hunk: Hunk,
  fileLines: readonly string[],
  where: { at: number; number: number; vocabulary: Vocabulary; byHint: boolean }
): Hunk {
  const lines: Hunk['lines'] = []
  let j = where.at
  for (const line of hunk.lines) {
    if (line.kind === '+') {
      lines.push(line)
      continue
    }
    const theirs = fileLines[j++]!
    const how = line.kind === '-' ? 'same' : compareContext(theirs, line.text, where.vocabulary)
    if (how === 'same' || how === 'slip') {
      lines.push(line)
      continue
    }
    if (how === 'unclear') {
      throw patchError(
        `Hunk ${where.number} for ${path} gives line ${j} as unchanged but writes it one character off from the file, ` +
          `a line too short to tell a copy slip from a change:\n${quote([`file:  ${theirs}`, `reply: ${line.text}`])}\n` +
          'Copy an unchanged line exactly; mark a line you change with "-" (the current line, copied exactly) and "+" (the new one).',
        { kind: 'hunk-not-found', file: path, hunk: where.number, expected: [line.text] },
        { line: j }
      )
    }
    if (where.byHint) {
      throw patchError(
        `Hunk ${where.number} for ${path} gives line ${j} as unchanged but writes it differently from the file, ` +
          `and its lines match in several places, so that change cannot be placed:\n${quote([`file:  ${theirs}`, `reply: ${line.text}`])}\n` +
          'Mark a line you change with "-" (the current line, copied exactly) and "+" (the new one), and include more unchanged lines around it.',
        { kind: 'ambiguous-hunk', file: path, hunk: where.number, expected: [line.text] },
        { line: j }
      )
    }
    lines.push(
      { kind: '-', text: theirs, noEol: line.noEol },
      { kind: '+', text: line.text, noEol: line.noEol }
    )
  }
  return { ...hunk, lines }
}

function overlap(path: string, first: number, second: number, at: number) {
  return patchError(
    `Hunks ${first} and ${second} for ${path} overlap near line ${at + 1}: a line one changes is ` +
      'context or a change in the other. Send one hunk per region of the file.',
    { kind: 'overlapping-hunks', file: path, hunk: second }
  )
}

/** Whether the file ends with a newline after a hunk that reaches its last line. */
function endsWithNewline(hunk: Hunk, before: boolean): boolean {
  const newSide = hunk.lines.filter((line) => line.kind !== '-')
  const last = newSide[newSide.length - 1]
  if (!last) return before
  if (last.noEol) return false
  // A reply without "\ No newline" markers says nothing about the final newline: keep the file's.
  const oldSide = hunk.lines.filter((line) => line.kind !== '+')
  return last.kind === '+' && oldSide[oldSide.length - 1]?.noEol ? true : before
}
