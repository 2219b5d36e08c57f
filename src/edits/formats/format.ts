import type { ZodType } from 'zod'
import type { FileInstruction, HeaderLog } from '../types.js'

/**
 * One way a model may write its edits, whole: how it is asked for and how a reply in it is read.
 * A format reads a reply into per-file instructions; the instructions then meet the files the
 * same way whatever format wrote them (see edit-reply.ts). A new format is a folder beside the
 * others, its prompt in `prompts/`, and one line in the registry (index.ts).
 */
export interface FormatStrategy<Name extends string = string> {
  name: Name
  /** The draft prompt, `prompts/<template>.md`. */
  template: string
  /** The reply holds the whole file, so the prompt must show all of it (never a window). */
  resendsWholeFile: boolean
  /** The JSON shape a reply is asked for with structured output, when the format is JSON. */
  replySchema?: { name: string; schema: ZodType }
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
