import type { FileIndex } from '../../file-index.js'
import type { FilePatch, Hunk } from '../../types.js'
import { withoutMadeChanges } from './already-present.js'
import { changingHunks, settleCutTail } from './cut-tail.js'
import { refitHunk } from './refit.js'

/**
 * A file's hunks as they can be placed: what a cut-off reply left unfinished settled, hunks
 * with no change dropped (when their lines are in the file), changes already made skipped, and
 * each hunk refitted to the file where real-reply damage explains the difference. Each step
 * refuses what it cannot settle safely (see its file).
 */
export function repairedHunks(path: string, patch: FilePatch, file: FileIndex): Hunk[] {
  const settled = settleCutTail(path, patch, file)
  // The reply stopped inside its last hunk: that hunk's last line may be half of a made-up one
  // (unless the hunk was dropped, cut among its changes).
  const mayBeCut = patch.cutOff === 'in-hunk' && settled.length === patch.hunks.length
  const lastHunk = settled[settled.length - 1]
  const changing = changingHunks(path, settled, file)
  return withoutMadeChanges(changing, file).map((hunk) =>
    refitHunk(hunk, file, { endMayBeCut: mayBeCut && hunk === lastHunk })
  )
}
