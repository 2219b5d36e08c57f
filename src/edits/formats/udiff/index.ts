import type { FileInstruction, FilePatch, Hunk } from '../../types.js'
import { withoutMadeChanges } from './already-present.js'
import { changingHunks, settleCutTail } from './cut-tail.js'
import { refitHunk } from './refit.js'
import type { EditFormat, ParseHints } from '../format.js'
import { readDiffReply } from './extract.js'
import { ASKING_HEADER, parseUnifiedDiff } from './parse.js'

export { extractDiff } from './extract.js'

/**
 * A file's hunks as they can be placed: what a cut-off reply left unfinished settled, hunks
 * with no change dropped (when their lines are in the file), changes already made skipped, and
 * each hunk refitted to the file where real-reply damage explains the difference. Each step
 * refuses what it cannot settle safely (see its file).
 */
export function repairedHunks(
  path: string,
  patch: FilePatch,
  fileLines: readonly string[]
): Hunk[] {
  const settled = settleCutTail(path, patch, fileLines)
  // The reply stopped inside its last hunk: that hunk's last line may be half of a made-up one.
  const mayBeCut = patch.cutOff === 'in-hunk'
  const lastHunk = settled[settled.length - 1]
  const changing = changingHunks(path, settled, fileLines)
  return withoutMadeChanges(changing, fileLines).map((hunk) =>
    refitHunk(hunk, fileLines, { endMayBeCut: mayBeCut && hunk === lastHunk })
  )
}
export { parseUnifiedDiff } from './parse.js'

/** Unified diffs, git-style or plain, bare or wrapped in fences, tags or `{"diff": …}`. */
export const udiff: EditFormat<'udiff'> = {
  name: 'udiff',
  marks: (reply) => /^(diff --git |@@)/m.test(reply) || /^--- .*\r?\n\+\+\+ /m.test(reply),
  parse: (reply, hints) => instructionsOfDiff(reply, hints)
}

export function instructionsOfDiff(reply: string, hints: ParseHints = {}): FileInstruction[] {
  let patches
  try {
    const { diff, cutOff } = readDiffReply(reply)
    patches = parseUnifiedDiff(diff, { cutOff: cutOff || hints.cutOff === true })
  } catch (error) {
    patches = headersAlone(reply)
    if (!patches) throw error
  }
  return patches.map((patch) =>
    patch.headed && patch.newPath === null && patch.oldPath !== null
      ? { kind: 'hunks', path: patch.oldPath, patch, deletes: true }
      : { kind: 'hunks', path: patch.newPath ?? patch.oldPath, patch }
  )
}

/**
 * A reply of headers alone (a copy, a rename, a mode change) holds no diff to extract, but what
 * it asks must still reach the policy: its sections from the first such header on, when they ask
 * something; undefined otherwise.
 */
function headersAlone(reply: string): FilePatch[] | undefined {
  const lines = reply.replace(/\r\n/g, '\n').split('\n')
  const first = lines.findIndex(
    (line) => ASKING_HEADER.test(line) || line.startsWith('diff --git ')
  )
  if (first < 0) return undefined
  try {
    const patches = parseUnifiedDiff(lines.slice(first).join('\n'))
    return patches.some((patch) => patch.asks) ? patches : undefined
  } catch {
    return undefined
  }
}
