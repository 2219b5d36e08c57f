import type { Hunk } from './types.js'

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0]

/**
 * The hunk's added lines moved by the indentation its old lines are off by. A model that copies a
 * block one level too far left (or right) writes its new lines at that level too: when every
 * non-blank context and removed line sits at the file's line shifted by the same number of the
 * same indent character, and the lines are otherwise equal, the added lines take the same shift.
 * Otherwise (no shift, mixed shifts, tabs against spaces, an added line too shallow to move) the
 * added lines are kept verbatim.
 */
export function shiftedToFile(hunk: Hunk, fileLines: readonly string[], at: number): Hunk {
  let shift: number | undefined
  let unit = ''
  let k = at
  for (const line of hunk.lines) {
    if (line.kind === '+') continue
    const file = fileLines[k++]
    if (file === undefined) return hunk
    if (line.text.trim() === '') continue
    const mine = indentOf(line.text)
    const theirs = indentOf(file)
    if (line.text.slice(mine.length).trimEnd() !== file.slice(theirs.length).trimEnd()) return hunk
    const chars = new Set(mine + theirs)
    if (chars.size > 1) return hunk
    const delta = theirs.length - mine.length
    if (shift !== undefined && delta !== shift) return hunk
    shift = delta
    unit = [...chars][0] ?? unit
  }
  if (!shift || unit === '') return hunk
  const by = shift
  const added = hunk.lines.filter((line) => line.kind === '+' && line.text.trim() !== '')
  const movable = added.every((line) => {
    const indent = indentOf(line.text)
    return (
      (indent === '' || new Set(indent).has(unit)) &&
      new Set(indent).size <= 1 &&
      indent.length + by >= 0
    )
  })
  if (!movable) return hunk
  return {
    ...hunk,
    lines: hunk.lines.map((line) => {
      if (line.kind !== '+' || line.text.trim() === '') return line
      const indent = indentOf(line.text)
      return { ...line, text: unit.repeat(indent.length + by) + line.text.slice(indent.length) }
    })
  }
}
