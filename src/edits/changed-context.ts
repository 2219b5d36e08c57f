import type { FileIndex } from './file-index.js'
import { fitLine } from './line-match.js'
import type { OldLine } from './locate.js'
import { clip } from './patch-error.js'

/** A line the reply gives as unchanged where the file, at the hunk's one place, reads otherwise. */
export interface ChangedContext {
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
export function changedContext(
  file: FileIndex,
  old: readonly (OldLine & { loose: string })[]
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
export function describeChanged(lines: readonly ChangedContext[], hint: number | null): string {
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
