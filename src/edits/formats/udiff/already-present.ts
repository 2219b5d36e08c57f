import { occurrencesInFile, type FileIndex } from '../../file-index.js'
import { looseKey } from '../../line-match.js'
import type { Hunk } from '../../types.js'

/**
 * The hunks whose change is not in the file yet; models re-add lines that are there. A hunk
 * whose old side (context and removed lines) is nowhere in the file while its new side (context
 * and added lines) is there exactly once has been made already: it is skipped, never reversed.
 * Any other hunk is kept for the locator, which judges it as usual (a line added beside its own
 * copy may be meant: tests repeat calls).
 */
export function withoutMadeChanges(hunks: readonly Hunk[], file: FileIndex): Hunk[] {
  return hunks.filter((hunk) => {
    const old = hunk.lines.filter((line) => line.kind !== '+').map((line) => looseKey(line.text))
    const now = hunk.lines.filter((line) => line.kind !== '-').map((line) => looseKey(line.text))
    if (!now.some((line) => line !== '')) return true
    return occurrencesInFile(old, file).length > 0 || occurrencesInFile(now, file).length !== 1
  })
}
