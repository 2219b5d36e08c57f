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
  const pairs = indentPairs(hunk, fileLines, at)
  if (pairs === undefined) return hunk
  return retabbed(hunk, pairs) ?? shifted(hunk, pairs) ?? hunk
}

interface IndentPair {
  mine: string
  theirs: string
}

/**
 * The indentation of each non-blank old line of the hunk beside the file's line it sits on;
 * undefined when the hunk runs past the file or a line differs in more than its indentation.
 */
function indentPairs(
  hunk: Hunk,
  fileLines: readonly string[],
  at: number
): IndentPair[] | undefined {
  const pairs: IndentPair[] = []
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
    pairs.push({ mine, theirs })
  }
  return pairs
}

function shifted(hunk: Hunk, pairs: readonly IndentPair[]): Hunk | undefined {
  let shift: number | undefined
  let unit = ''
  for (const { mine, theirs } of pairs) {
    const chars = new Set(mine + theirs)
    if (chars.size > 1) return undefined
    const delta = theirs.length - mine.length
    if (shift !== undefined && delta !== shift) return undefined
    shift = delta
    unit = [...chars][0] ?? unit
  }
  if (!shift || unit === '') return undefined
  const by = shift
  return reindented(hunk, (indent) =>
    (indent === '' || new Set(indent).has(unit)) &&
    new Set(indent).size <= 1 &&
    indent.length + by >= 0
      ? unit.repeat(indent.length + by)
      : undefined
  )
}

/**
 * The hunk's added lines indented the file's way, when the model wrote tabs as spaces (or spaces
 * as tabs): every non-blank context and removed line is the file's line with each tab of its
 * indentation written as the same number of spaces, and every added line's indentation is a
 * whole number of such tabs. Python refuses the mix (TabError) and make wants its tabs.
 */
function retabbed(hunk: Hunk, pairs: readonly IndentPair[]): Hunk | undefined {
  let width: number | undefined
  let toTabs: boolean | undefined
  for (const { mine, theirs } of pairs) {
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
  if (width === undefined) return undefined
  const by = width
  return reindented(hunk, (indent) => {
    if (indent === '') return ''
    if (toTabs)
      return /^ +$/.test(indent) && indent.length % by === 0
        ? '\t'.repeat(indent.length / by)
        : undefined
    return /^\t+$/.test(indent) ? ' '.repeat(indent.length * by) : undefined
  })
}

/** The hunk with each non-blank added line's indentation converted; undefined if one cannot be. */
function reindented(hunk: Hunk, convert: (indent: string) => string | undefined): Hunk | undefined {
  const lines = []
  for (const line of hunk.lines) {
    if (line.kind !== '+' || line.text.trim() === '') {
      lines.push(line)
      continue
    }
    const indent = indentOf(line.text)
    const converted = convert(indent)
    if (converted === undefined) return undefined
    lines.push({ ...line, text: converted + line.text.slice(indent.length) })
  }
  return { ...hunk, lines }
}
