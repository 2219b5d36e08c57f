import { occurrencesInFile, type FileIndex } from '../../file-index.js'
import { looseKey } from '../../line-match.js'
import type { Hunk } from '../../types.js'

/**
 * The hunks whose change is not in the file yet; models re-add lines that are there. A hunk
 * whose old side (context and removed lines) is nowhere in the file while its new side (context
 * and added lines) is there exactly once, with the lines it adds there exactly as written, has been made
 * already: it is skipped, never reversed. Only added lines show a change was made: a hunk that
 * only removes lines (its new side is context alone, which meets wherever the removed block ended
 * like the lines before it) and an added line the file holds only with other whitespace (the
 * change may be that whitespace) are no such sign. Any other hunk is kept for the locator, which
 * judges it as usual (a line added beside its own copy may be meant: tests repeat calls).
 */
export function withoutMadeChanges(hunks: readonly Hunk[], file: FileIndex): Hunk[] {
  return hunks.filter((hunk) => {
    const old = hunk.lines.filter((line) => line.kind !== '+').map((line) => looseKey(line.text))
    const newSide = hunk.lines.filter((line) => line.kind !== '-')
    const now = newSide.map((line) => looseKey(line.text))
    if (!newSide.some((line) => line.kind === '+' && looseKey(line.text) !== '')) return true
    if (occurrencesInFile(old, file).length > 0) return true
    const made = occurrencesInFile(now, file)
    if (made.length !== 1) return true
    return !newSide.every((line, k) => line.kind !== '+' || file.lines[made[0]! + k] === line.text)
  })
}
