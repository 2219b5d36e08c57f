import { indexLines, locate } from '../../locate.js'
import { patchError } from '../../patch-error.js'
import { joinText, linesOf, splitText } from '../../text-file.js'
import type { HunkPlacement, SearchReplaceBlock } from '../../types.js'

const SEARCH = /^<{5,9} ?SEARCH\s*$/
const DIVIDER = /^={5,9}\s*$/
const REPLACE = /^>{5,9} ?REPLACE\s*$/
const FENCE = /^(```|~~~)/
const SEND_SEARCH_REPLACE =
  'Reply with SEARCH/REPLACE blocks only: the file path on its own line, then "<<<<<<< SEARCH", ' +
  'the exact current lines, "=======", the new lines, and ">>>>>>> REPLACE".'

interface PathedBlocks {
  path: string | null
  blocks: SearchReplaceBlock[]
}

/**
 * Reads SEARCH/REPLACE blocks, each optionally preceded by the path it edits (the nearest line
 * above it that is not a fence); prose and fences between blocks are ignored.
 */
export function parseSearchReplace(reply: string): PathedBlocks[] {
  const lines = reply.replace(/\r\n/g, '\n').split('\n')
  const files: PathedBlocks[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!SEARCH.test(lines[i]!)) continue
    const path = pathAbove(lines, i)
    const divider = lines.findIndex((line, k) => k > i && DIVIDER.test(line))
    const end = divider < 0 ? -1 : lines.findIndex((line, k) => k > divider && REPLACE.test(line))
    const nextSearch = lines.findIndex((line, k) => k > i && SEARCH.test(line))
    if (divider < 0 || end < 0 || (nextSearch >= 0 && nextSearch < end)) {
      throw patchError(
        `The SEARCH/REPLACE block that starts at line ${i + 1} is not closed: it needs "=======" and then ">>>>>>> REPLACE". ${SEND_SEARCH_REPLACE}`,
        { kind: 'unterminated-block', line: i + 1 }
      )
    }
    const block = { search: lines.slice(i + 1, divider), replace: lines.slice(divider + 1, end) }
    const last = files[files.length - 1]
    if (last && (path === null || path === last.path)) last.blocks.push(block)
    else files.push({ path, blocks: [block] })
    i = end
  }
  if (files.length === 0) {
    throw patchError(`The reply holds no SEARCH/REPLACE block. ${SEND_SEARCH_REPLACE}`, {
      kind: 'no-edits'
    })
  }
  return files
}

function pathAbove(lines: readonly string[], i: number): string | null {
  for (let k = i - 1; k >= 0; k--) {
    const line = lines[k]!.trim()
    if (line === '' || FENCE.test(line)) continue
    if (REPLACE.test(line)) return null
    const path = line.replace(/^[`*]+|[`*:]+$/g, '').replace(/^(file|path):\s*/i, '')
    return /^[\w.@+/-]+$/.test(path) && /[./]/.test(path) ? path : null
  }
  return null
}

interface SearchReplaceResult {
  content: string
  located: HunkPlacement[]
}

/**
 * Applies blocks in order, each to the text the previous ones left. A SEARCH text must occur
 * once (whitespace drift aside): when it occurs several times or not at all the block is refused.
 * When the SEARCH lines only miss (or add) the same indentation on every line, the REPLACE lines
 * are given the file's indentation the same way.
 */
export function applySearchReplace(
  path: string,
  before: string,
  blocks: readonly SearchReplaceBlock[],
  newFile: { eol: '\n' | '\r\n'; finalNewline: boolean }
): SearchReplaceResult {
  let content = before
  const located: HunkPlacement[] = []
  blocks.forEach((block, i) => {
    const number = i + 1
    const file = splitText(content, newFile.eol)
    const search = trimBlank(block.search)
    if (search.length === 0) {
      if (file.lines.length > 0) {
        throw patchError(
          `SEARCH block ${number} for ${path} is empty, but the file is not: an empty SEARCH only writes a new file. ` +
            'To insert lines, SEARCH for the lines just before the place and repeat them at the top of REPLACE.',
          { kind: 'empty-search', file: path, hunk: number }
        )
      }
      const lines = linesOf(block.replace.join('\n'))
      content =
        lines.length === 0
          ? ''
          : lines.join(newFile.eol) + (newFile.finalNewline ? newFile.eol : '')
      located.push({ hunk: number, line: 1, how: 'exact', whitespaceLines: 0, fuzzyLines: 0 })
      return
    }
    const index = indexLines(file.lines)
    const where = locate(index, {
      path,
      number,
      noun: 'SEARCH block',
      old: search.map((text) => ({ text, removed: true })),
      hint: null,
      allowTypos: false
    })
    located.push({ hunk: number, line: where.at + 1, ...where })
    const replacement = reindent(
      file.lines.slice(where.at, where.at + search.length),
      search,
      block.replace
    )
    const lines = [...file.lines]
    const ends = [...file.ends]
    const lastEnd = ends[where.at + search.length - 1]!
    lines.splice(where.at, search.length, ...replacement)
    ends.splice(where.at, search.length, ...replacement.map(() => file.eol))
    // The block's last line takes over the replaced last line's ending (none at the file's end).
    if (replacement.length > 0) ends[where.at + replacement.length - 1] = lastEnd
    else if (where.at === lines.length && lines.length > 0) ends[lines.length - 1] = lastEnd
    content = joinText({ lines, ends })
  })
  return { content, located }
}

/** SEARCH text written with blank lines around it: those are the reply's spacing. */
function trimBlank(lines: readonly string[]): string[] {
  let from = 0
  let to = lines.length
  while (from < to && lines[from]!.trim() === '') from++
  while (to > from && lines[to - 1]!.trim() === '') to--
  return lines.slice(from, to)
}

const indentOf = (line: string) => /^\s*/.exec(line)![0]

/** REPLACE lines with the indentation the file has where the SEARCH lines lost or gained some. */
function reindent(found: readonly string[], search: readonly string[], replace: readonly string[]) {
  let shift: { add: string } | { drop: string } | undefined
  for (let k = 0; k < search.length; k++) {
    if (search[k]!.trim() === '') continue
    const have = indentOf(found[k]!)
    const wrote = indentOf(search[k]!)
    const step =
      have === wrote
        ? { add: '' }
        : have.endsWith(wrote)
          ? { add: have.slice(0, have.length - wrote.length) }
          : wrote.endsWith(have)
            ? { drop: wrote.slice(0, wrote.length - have.length) }
            : undefined
    if (!step || (shift && JSON.stringify(shift) !== JSON.stringify(step))) return [...replace]
    shift = step
  }
  if (!shift) return [...replace]
  if ('add' in shift) {
    const add = shift.add
    return replace.map((line) => (line.trim() === '' ? line : add + line))
  }
  const drop = shift.drop
  return replace.map((line) => (line.startsWith(drop) ? line.slice(drop.length) : line))
}
