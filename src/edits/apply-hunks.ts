import { InvalidDiffError } from '../contract/index.js'
import { joinText, splitText, type TextLines } from './text-file.js'
import type { Hunk, Placement } from './types.js'

export interface AppliedText {
  content: string
  placements: Placement[]
}

interface Located {
  hunk: Hunk
  at: number
  oldLength: number
  placement: Placement
}

const loose = (line: string) => line.replace(/\s+/g, ' ').trim()

/**
 * Applies hunks to a file's contents. Each hunk is placed where its context and removed lines
 * occur, exactly or with whitespace drift; the model's line number only settles a tie. A hunk
 * whose lines do not occur, or occur in several places the hint cannot settle, is refused.
 */
export function applyHunks(path: string, before: string, hunks: readonly Hunk[]): AppliedText {
  const file = splitText(before)
  const located = hunks.map((hunk, index) => locate(path, file, hunk, index))
  const ordered = [...located].sort((a, b) => a.at - b.at)
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!
    if (ordered[i]!.at < previous.at + previous.oldLength) {
      throw new InvalidDiffError(
        `Two hunks for ${path} overlap near line ${ordered[i]!.at + 1}; send one hunk per region.`,
        {
          rule: 'overlapping-hunks',
          path
        }
      )
    }
  }
  const lines = [...file.lines]
  let finalNewline = file.finalNewline
  for (const { hunk, at, oldLength } of ordered.reverse()) {
    const replacement: string[] = []
    let offset = 0
    for (const line of hunk.lines) {
      if (line.kind === '+') replacement.push(line.text)
      else if (line.kind === ' ') replacement.push(lines[at + offset++]!)
      else offset++
    }
    const reachesEnd = at + oldLength === lines.length
    lines.splice(at, oldLength, ...replacement)
    // An empty file has no final newline to keep: new text gets one unless the reply says not.
    if (reachesEnd)
      finalNewline = endsWithNewline(hunk, file.finalNewline || file.lines.length === 0)
  }
  if (lines.length === 0) finalNewline = false
  const after: TextLines = { lines, eol: file.eol, finalNewline }
  return { content: joinText(after), placements: located.map((l) => l.placement) }
}

function locate(path: string, file: TextLines, hunk: Hunk, index: number): Located {
  const old = hunk.lines.filter((line) => line.kind !== '+').map((line) => line.text)
  const hint = Math.max(0, hunk.oldStart - 1)
  if (old.length === 0) {
    if (file.lines.length === 0) return { hunk, at: 0, oldLength: 0, placement: 'exact' }
    if (hunk.oldStart > 0 && hunk.oldStart <= file.lines.length) {
      return { hunk, at: hunk.oldStart, oldLength: 0, placement: 'hint' }
    }
    throw new InvalidDiffError(
      `Hunk ${index + 1} for ${path} adds lines without any context, so its place is unknown; include a few unchanged lines around it.`,
      { rule: 'no-context', path, hunk: index + 1 }
    )
  }
  for (const [placement, same] of [
    ['exact', (a: string, b: string) => a === b],
    ['whitespace', (a: string, b: string) => loose(a) === loose(b)]
  ] as const) {
    const matches: number[] = []
    for (let at = 0; at + old.length <= file.lines.length; at++) {
      if (old.every((line, k) => same(file.lines[at + k]!, line))) matches.push(at)
    }
    if (matches.length === 1) return { hunk, at: matches[0]!, oldLength: old.length, placement }
    if (matches.length > 1) {
      if (matches.includes(hint) && old.some((line) => line.trim() !== ''))
        return { hunk, at: hint, oldLength: old.length, placement: 'hint' }
      throw new InvalidDiffError(
        `Hunk ${index + 1} for ${path} matches ${matches.length} places (lines ${matches.map((m) => m + 1).join(', ')}); ` +
          'add more context lines so it matches exactly one.',
        { rule: 'ambiguous-hunk', path, hunk: index + 1 }
      )
    }
  }
  throw new InvalidDiffError(
    `Hunk ${index + 1} for ${path} does not match the file: its context and "-" lines were not found. ` +
      'Copy them exactly from the current content.',
    { rule: 'hunk-not-found', path, hunk: index + 1, expected: old.slice(0, 5) }
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
