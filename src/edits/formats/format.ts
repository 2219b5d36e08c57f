import type { ZodType } from 'zod'
import type { FileIndex } from '../file-index.js'
import type { FormatTemplate } from './template.js'
import type { FileInstruction, HeaderLog, HunkPlacement, PlannedFile } from '../types.js'

/**
 * One way a model may write its edits, whole: how it is asked for, how a reply in it is read and
 * how what it read is applied to a file. A new format is a folder beside the others (its code and
 * its draft prompt) and one line in the registry (index.ts); nothing outside `formats/` names a
 * format.
 */
export interface FormatStrategy<Name extends string = string> {
  name: Name
  /** The draft prompt: `<name>.md` in the format's own folder. */
  template: FormatTemplate
  /** The reply holds the whole file, so the prompt must show all of it (never a window). */
  resendsWholeFile: boolean
  /** The JSON shape a reply is asked for with structured output, when the format is JSON. */
  replySchema?: { name: string; schema: ZodType }
  /** Whether a reply is plainly written in this format: its own markers show. */
  marks(reply: string): boolean
  /** The reply read as instructions; throws a patch error (INVALID_DIFF) when it cannot be. */
  parse(reply: string, hints?: ParseHints): FileInstruction[]
  /**
   * The instructions this format read for one file, applied to it (a file the plan keeps: a
   * reply that deletes is settled before). Throws a patch error when they cannot be placed.
   */
  apply(
    file: PlannedFile,
    instructions: readonly FileInstruction[],
    context: ApplyContext
  ): AppliedInstructions
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

/** What a format may know of the whole reply while it applies one file's part. */
export interface ApplyContext {
  /** Line ending and final newline for lines of a file that is empty or new. */
  fresh: { eol: '\n' | '\r\n'; finalNewline: boolean }
  /** The path the reply named for this file, when it is not the planned one. */
  claimed?: string
  /** Every planned file of the reply with its instructions: one file's may judge another's. */
  reply: readonly { file: PlannedFile; instructions: readonly FileInstruction[] }[]
  /** A file's lines, split and indexed once for every step that reads them. */
  indexOf(file: PlannedFile): FileIndex
}

export interface AppliedInstructions {
  content: string
  /** Where and how each hunk, block or edit was placed, for the logs. */
  located: HunkPlacement[]
}
