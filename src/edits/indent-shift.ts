import type { Hunk } from './types.js'

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0]

/**
 * The hunk's added lines moved by the indentation its old lines are off by. A model that copies a
 * block one level too far left (or right) writes its new lines at that level too: when every
 * non-blank context and removed line sits at the file's line shifted by the same number of the
 * same indent character, and the lines are otherwise equal, the added lines take the same shift.
 * Tabs written as spaces (or the reverse) are turned back the file's way (see `retabbed`).
 * Otherwise (no shift, mixed shifts, an added line too shallow to move) the added lines are kept
 * verbatim.
 */
export function shiftedToFile(hunk: Hunk, fileLines: readonly string[], at: number): Hunk {
  return retabbed(hunk, fileLines, at) ?? shifted(hunk, fileLines, at)
}

function shifted(hunk: Hunk, fileLines: readonly string[], at: number): Hunk {
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

/**
 * The hunk's added lines indented the file's way, when the model wrote tabs as spaces (or spaces
 * as tabs): every non-blank context and removed line is the file's line with each tab of its
 * indentation written as the same number of spaces, and every added line's indentation is a
 * whole number of such tabs. Python refuses the mix (TabError) and make wants its tabs.
 * Undefined when that is not so (the lines are then judged as they are).
 */
function retabbed(hunk: Hunk, fileLines: readonly string[], at: number): Hunk | undefined {
  let width: number | undefined
  let toTabs: boolean | undefined
  let k = at
  for (const line of hunk.lines) {
    if (line.kind === '+') continue
    const file = fileLines[k++]
    if (file === undefined) return undefined
    if (line.text.trim() === '') continue
    const mine = indentOf(line.text)
    const theirs = indentOf(file)
    if (line.text.slice(mine.length).trimEnd() !== file.slice(theirs.length).trimEnd())
      return undefined
    if (mine === theirs) {
      if (mine === '') continue
      return undefined
    }
    const [spaces, tabs, filesTabs] =
      /^\t+$/.test(theirs) && /^ +$/.test(mine)
        ? [mine, theirs, true]
        : /^ +$/.test(theirs) && /^\t+$/.test(mine)
          ? [theirs, mine, false]
          : [undefined, undefined, undefined]
    if (spaces === undefined || spaces.length % tabs.length !== 0) return undefined
    if (toTabs !== undefined && toTabs !== filesTabs) return undefined
    if (width !== undefined && spaces.length / tabs.length !== width) return undefined
    toTabs = filesTabs
    width = spaces.length / tabs.length
  }
  if (width === undefined || toTabs === undefined) return undefined
  const by = width
  const added = hunk.lines.filter((line) => line.kind === '+' && line.text.trim() !== '')
  const convert = (indent: string): string | undefined => {
    if (indent === '') return ''
    if (toTabs)
      return /^ +$/.test(indent) && indent.length % by === 0
        ? '\t'.repeat(indent.length / by)
        : undefined
    return /^\t+$/.test(indent) ? ' '.repeat(indent.length * by) : undefined
  }
  if (added.some((line) => convert(indentOf(line.text)) === undefined)) return undefined
  return {
    ...hunk,
    lines: hunk.lines.map((line) => {
      if (line.kind !== '+' || line.text.trim() === '') return line
      const indent = indentOf(line.text)
      return { ...line, text: convert(indent)! + line.text.slice(indent.length) }
    })
  }
}
