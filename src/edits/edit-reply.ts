import type { FileChange, StyleConfig } from '../contract/index.js'
import { checkAddedText } from './added-text.js'
import { indexLines, type FileIndex } from './file-index.js'
import { formatNamed, type ApplyContext, type ReplyFormatOrAuto } from './formats/index.js'
import { patchError } from './patch-error.js'
import { readReply, type ReadReply } from './read-reply.js'
import { route } from './route.js'
import { splitText } from './text-file.js'
import type { FileEdit, FileInstruction, HunkPlacement, Placement, PlannedFile } from './types.js'

export type { PlannedFile } from './types.js'

export interface DraftedEdit {
  edit: FileEdit
  placements: Placement[]
  /** Where and how each hunk, block or edit was placed, for the logs. */
  located: HunkPlacement[]
  /** The path the reply named, when it differs from the planned one. */
  claimedPath?: string
}

interface ReplyOptions {
  /** Line endings and final newline for files the edit creates. */
  style?: Pick<StyleConfig, 'end_of_line' | 'insert_final_newline'>
  /** The model said the reply stopped at its output limit: its end may be half-written. */
  cutOff?: boolean
}

/**
 * Turns one model reply for one planned file into that file's new contents. The call was for one
 * file, so a reply for one file lands on the planned path whatever its header says (the claimed
 * path is returned for the logs); a reply that also edits other files is refused.
 */
export function editFromReply(
  format: ReplyFormatOrAuto,
  reply: string,
  change: FileChange,
  current: string | null,
  options: ReplyOptions = {}
): DraftedEdit {
  return editFromRead(readReply(format, reply, options), change, current, options)
}

/** `editFromReply` on a reply already read (and its claims judged by the path policy). */
export function editFromRead(
  read: ReadReply,
  change: FileChange,
  current: string | null,
  options: ReplyOptions = {}
): DraftedEdit {
  return editsFromRead(
    read,
    [{ path: change.path, operation: change.operation, content: current }],
    options
  )[0]!
}

/**
 * A reply that may edit several planned files (the benchmark's multi-file commits): every part
 * of the reply must name one of them exactly, except that a one-file reply for a one-file plan
 * is applied to that file whatever path it names. Returns one edit per planned file, in order;
 * files the reply does not touch keep their contents.
 */
export function editsFromReply(
  format: ReplyFormatOrAuto,
  reply: string,
  files: readonly PlannedFile[],
  options: ReplyOptions = {}
): DraftedEdit[] {
  return editsFromRead(readReply(format, reply, options), files, options)
}

/**
 * `editsFromReply` on a reply already read (and its claims judged by the path policy). The
 * format that read the reply applies each file's part (see FormatStrategy.apply).
 */
export function editsFromRead(
  { format, instructions, claims, refusal }: ReadReply,
  files: readonly PlannedFile[],
  options: ReplyOptions = {}
): DraftedEdit[] {
  const ask = claims.asks[0]
  if (ask) throw patchError(ask.message, { kind: ask.kind, line: ask.line })
  if (refusal) throw refusal
  const routed = route(instructions, files)
  // Each file's lines are split and indexed once, for every step and hunk that reads them.
  const indexes = new Map<PlannedFile, FileIndex>()
  const indexOf = (file: PlannedFile) => {
    let index = indexes.get(file)
    if (!index) indexes.set(file, (index = indexLines(splitText(file.content ?? '').lines)))
    return index
  }
  const reply = files.map((file) => ({ file, instructions: routed.get(file.path) ?? [] }))
  const shared = {
    fresh: {
      eol: options.style?.end_of_line === 'crlf' ? '\r\n' : '\n',
      finalNewline: options.style?.insert_final_newline ?? true
    },
    reply,
    indexOf
  } satisfies ApplyContext
  return reply.map(({ file, instructions: mine }) => {
    if (mine.length === 0) {
      return {
        edit: {
          path: file.path,
          operation: file.operation,
          before: file.content,
          after: file.content
        },
        placements: [],
        located: []
      }
    }
    const claimed = mine.map((i) => i.path).find((path) => path !== null && path !== file.path)
    const applied = deletes(file, mine)
      ? { content: null, located: [] }
      : formatNamed(format).apply(file, mine, { ...shared, ...(claimed ? { claimed } : {}) })
    checkAddedText(file.path, file.content, applied.content)
    return {
      edit: {
        path: file.path,
        operation: file.operation,
        before: file.content,
        after: applied.content
      },
      placements: applied.located.map((place) => place.how),
      located: applied.located,
      ...(claimed ? { claimedPath: claimed } : {})
    }
  })
}

/** Whether the reply deletes the file, in any format; refused unless the plan deletes it. */
function deletes(file: PlannedFile, instructions: readonly FileInstruction[]): boolean {
  if (!instructions.some((i) => i.kind === 'delete' || (i.kind === 'hunks' && i.deletes)))
    return false
  if (file.operation !== 'DELETE') {
    throw patchError(
      `The reply deletes ${file.path}, but the plan asks to ${file.operation.toLowerCase()} it. Edit the file instead.`,
      { kind: 'delete-refused', file: file.path }
    )
  }
  return true
}
