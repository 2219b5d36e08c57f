import type { FileInstruction } from '../../types.js'
import type { EditFormat, ParseHints } from '../format.js'
import { readDiffReply } from './extract.js'
import { parseUnifiedDiff } from './parse.js'

export { extractDiff, readDiffReply, SEND_UDIFF } from './extract.js'
export { parseUnifiedDiff } from './parse.js'

/** Unified diffs, git-style or plain, bare or wrapped in fences, tags or `{"diff": …}`. */
export const udiff: EditFormat<'udiff'> = {
  name: 'udiff',
  marks: (reply) => /^(diff --git |@@)/m.test(reply) || /^--- .*\r?\n\+\+\+ /m.test(reply),
  parse: (reply, hints) => instructionsOfDiff(reply, hints)
}

export function instructionsOfDiff(reply: string, hints: ParseHints = {}): FileInstruction[] {
  const { diff, cutOff } = readDiffReply(reply)
  return parseUnifiedDiff(diff, { cutOff: cutOff || hints.cutOff === true }).map((patch) =>
    patch.headed && patch.newPath === null && patch.oldPath !== null
      ? { kind: 'hunks', path: patch.oldPath, patch, deletes: true }
      : { kind: 'hunks', path: patch.newPath ?? patch.oldPath, patch }
  )
}
