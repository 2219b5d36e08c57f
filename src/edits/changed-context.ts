import type { InvalidDiffError } from '../contract/index.js'
import type { FileIndex } from './file-index.js'
import { fitLine } from './line-match.js'
import { clip, nearbyLines, patchError } from './patch-error.js'

/** A hunk's old line as the locator reads it: its text, loose key and whether it is removed. */
interface OldLine {
  text: string
  loose: string
  removed: boolean
}

/** A line the reply gives as unchanged where the file, at the hunk's one place, reads otherwise. */
interface ChangedContext {
  /** 0-based index among the hunk's old lines. */
  k: number
  /** 1-based line of the file the reply's line stands for. */
  fileLine: number
  file: string
  reply: string
}

/**
 * Why a hunk that was not found is not where it plainly belongs: the one place where its lines to
 * remove and all but a few of its unchanged lines fit, and the unchanged lines that the reply
 * wrote otherwise there (more than a copy slip: a change the model did not mark). Undefined when
 * no single place explains the hunk that way.
 */
function changedContext(
  file: FileIndex,
  old: readonly OldLine[]
): { at: number; lines: ChangedContext[] } | undefined {
  const context = old.filter((line) => !line.removed && line.loose !== '').length
  const allowed = Math.max(1, Math.floor(context / 4))
  const starts = new Set<number>()
  old.forEach((line, k) => {
    if (line.loose === '') return
    for (const at of file.byLoose.get(line.loose) ?? []) {
      if (at - k >= 0 && at - k + old.length <= file.lines.length) starts.add(at - k)
    }
  })
  const found: { at: number; lines: ChangedContext[] }[] = []
  for (const at of starts) {
    const lines: ChangedContext[] = []
    const fits = old.every((line, k) => {
      const fit = fitLine(file.lines[at + k]!, line.text, file.loose[at + k]!, line.loose)
      if (fit === 'exact' || fit === 'trailing' || fit === 'whitespace') return true
      if (line.removed) return false
      lines.push({ k, fileLine: at + k + 1, file: file.lines[at + k]!, reply: line.text })
      return lines.length <= allowed
    })
    // Every differing line has a line of the hunk that fits on each side: the place is pinned.
    const inside = lines.every((line) => line.k > 0 && line.k < old.length - 1)
    if (fits && lines.length > 0 && inside) found.push({ at, lines })
  }
  return found.length === 1 ? found[0] : undefined
}

/** The differing lines as a message names them: the reply's line and the file's, numbered. */
function describeChanged(lines: readonly ChangedContext[], hint: number | null): string {
  return lines
    .map((line) => {
      const numbered = hint === null ? '' : `, line ${hint + line.k + 1} by its @@ header`
      return (
        `  reply (line ${line.k + 1} of the hunk's old side${numbered}): ${clip(line.reply.trim(), 120)}\n` +
        `  file  (line ${line.fileLine}): ${clip(line.file.trim(), 120)}`
      )
    })
    .join('\n')
}

/**
 * The refusal of a hunk that was not found when `changedContext` explains why: it names the
 * reply's line and the file's line there, so the model (and a maintainer) sees what to fix.
 */
export function changedContextRefusal(
  file: FileIndex,
  request: { path: string; number: number; noun: string; hint: number | null },
  old: readonly OldLine[]
): InvalidDiffError | undefined {
  const changed = changedContext(file, old)
  if (!changed) return undefined
  const one = changed.lines.length === 1
  return patchError(
    `${request.noun} ${request.number} for ${request.path} gives ${one ? 'a line' : `${changed.lines.length} lines`} as unchanged that the file reads otherwise where the rest of the hunk fits (from line ${changed.at + 1}):\n` +
      `${describeChanged(changed.lines, request.hint)}\n` +
      `If you mean to change ${one ? 'that line' : 'those lines'}, mark ${one ? 'it' : 'each'} with "-" (the file's line, copied exactly) and "+" (your version); ` +
      `otherwise copy ${one ? 'it' : 'them'} exactly from the file.`,
    {
      kind: 'hunk-not-found',
      file: request.path,
      hunk: request.number,
      expected: changed.lines.map((line) => line.reply),
      found_nearby: nearbyLines(file.lines, changed.at, old.length)
    },
    { line: changed.lines[0]!.fileLine }
  )
}
