import { markSuperseded, saysItReplaces } from '../../diff-sections.js'
import type { FileInstruction, HeaderLog } from '../../types.js'
import type { ParseHints } from '../format.js'
import { readDiffReply } from './extract.js'
import { parseUnifiedDiff } from './parse.js'

/**
 * A reply's diff read as per-file hunk instructions (a section to /dev/null deletes its file),
 * each section marked when a later block of the reply replaces it.
 */
export function instructionsOfDiff(reply: string, hints: ParseHints = {}): FileInstruction[] {
  let patches
  try {
    const { diff, cutOff, blocks } = readDiffReply(reply)
    patches = parseUnifiedDiff(diff, {
      cutOff: cutOff || hints.cutOff === true,
      blockStarts: blocks.map((block) => block.line),
      ...(hints.headers ? { headers: hints.headers } : {})
    })
    markSuperseded(
      patches,
      blocks.map((block) => saysItReplaces(block.prose))
    )
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
