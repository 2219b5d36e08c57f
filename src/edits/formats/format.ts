import type { FileInstruction, HeaderLog } from '../types.js'

/**
 * One way a model may write its edits. A format reads a reply into per-file instructions; the
 * instructions then meet the files the same way whatever format wrote them (see edit-reply.ts).
 * A new format is a folder beside the others and one line in the registry (index.ts).
 */
export interface EditFormat<Name extends string = string> {
  name: Name
  /** Whether a reply is plainly written in this format: its own markers show. */
  marks(reply: string): boolean
  /** The reply read as instructions; throws a patch error (INVALID_DIFF) when it cannot be. */
  parse(reply: string, hints?: ParseHints): FileInstruction[]
}

export interface ParseHints {
  /** The model said the reply stopped at its output limit (finish_reason: length). */
  cutOff?: boolean
  /**
   * Where a diff's header names and asks are written as they are read, even when the reply is
   * then refused: the path policy judges them (readReply). Without it, an ask is thrown.
   */
  headers?: HeaderLog
}
