import type { FileIndex } from '../../file-index.js'
import type { FileInstruction, FilePatch, HeaderLog, Hunk } from '../../types.js'
import { withoutMadeChanges } from './already-present.js'
import { changingHunks, settleCutTail } from './cut-tail.js'
import { refitHunk } from './refit.js'
import type { FormatStrategy, ParseHints } from '../format.js'
import { readDiffReply } from './extract.js'
import { parseUnifiedDiff } from './parse.js'

export { extractDiff } from './extract.js'

/**
 * A file's hunks as they can be placed: what a cut-off reply left unfinished settled, hunks
 * with no change dropped (when their lines are in the file), changes already made skipped, and
 * each hunk refitted to the file where real-reply damage explains the difference. Each step
 * refuses what it cannot settle safely (see its file).
 */
export function repairedHunks(path: string, patch: FilePatch, file: FileIndex): Hunk[] {
  const settled = settleCutTail(path, patch, file)
  // The reply stopped inside its last hunk: that hunk's last line may be half of a made-up one.
  const mayBeCut = patch.cutOff === 'in-hunk'
  const lastHunk = settled[settled.length - 1]
  const changing = changingHunks(path, settled, file)
  return withoutMadeChanges(changing, file).map((hunk) =>
    refitHunk(hunk, file, { endMayBeCut: mayBeCut && hunk === lastHunk })
  )
}
export { parseUnifiedDiff } from './parse.js'

/** Unified diffs, git-style or plain, bare or wrapped in fences, tags or `{"diff": …}`. */
export const udiff: FormatStrategy<'udiff'> = {
  name: 'udiff',
  template: 'draft-udiff',
  resendsWholeFile: false,
  marks: (reply) => /^(diff --git |@@)/m.test(reply) || /^--- .*\r?\n\+\+\+ /m.test(reply),
  parse: (reply, hints) => instructionsOfDiff(reply, hints)
}

export function instructionsOfDiff(reply: string, hints: ParseHints = {}): FileInstruction[] {
  let patches
  try {
    const { diff, cutOff } = readDiffReply(reply)
    patches = parseUnifiedDiff(diff, {
      cutOff: cutOff || hints.cutOff === true,
      ...(hints.headers ? { headers: hints.headers } : {})
    })
  } catch (error) {
    if (hints.headers) readHeadersAlone(reply, hints.headers)
    throw error
  }
  return patches.map((patch) =>
    patch.headed && patch.newPath === null && patch.oldPath !== null
      ? { kind: 'hunks', path: patch.oldPath, patch, deletes: true }
      : { kind: 'hunks', path: patch.newPath ?? patch.oldPath, patch }
  )
}

/**
 * A reply with no diff to extract may still hold git headers alone (a copy, a rename, a mode
 * change): what they name and ask is read into the log, from the first `diff --git` line on, so
 * the policy sees it; the reply is refused all the same.
 */
function readHeadersAlone(reply: string, headers: HeaderLog): void {
  if (headers.sections.length > 0 || headers.asks.length > 0) return
  const lines = reply.replace(/\r\n/g, '\n').split('\n')
  const first = lines.findIndex((line) => line.startsWith('diff --git '))
  if (first < 0) return
  try {
    parseUnifiedDiff(lines.slice(first).join('\n'), { headers })
  } catch {
    // The names and asks are in the log; the reply's own refusal stands.
  }
}
