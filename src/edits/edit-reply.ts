import {
  InvalidDiffError,
  type FileChange,
  type Operation,
  type StyleConfig
} from '../contract/index.js'
import { applyHunks, probeLineNumbers } from './apply-hunks.js'
import { indexLines, type FileIndex } from './file-index.js'
import {
  applyJsonEdits,
  applySearchReplace,
  parseAs,
  repairedHunks,
  writtenIn,
  type ParseHints,
  type ReplyFormat,
  type ReplyFormatOrAuto
} from './formats/index.js'
import { revisionRefusal, saysItReplaces, sectionsToApply } from './diff-sections.js'
import { patchError } from './patch-error.js'
import { checkAddedText, checkNotTruncated } from './added-text.js'
import { contentOf, splitText } from './text-file.js'
import type {
  FileEdit,
  FileInstruction,
  HeaderLog,
  HunkPlacement,
  Placement,
  ReplyClaims
} from './types.js'

/** A file the reply may edit: its planned operation and its contents now (null: absent). */
export interface PlannedFile {
  path: string
  operation: Operation
  content: string | null
}

export interface DraftedEdit {
  edit: FileEdit
  placements: Placement[]
  /** Where and how each hunk, block or edit was placed, for the logs. */
  located: HunkPlacement[]
  /** The path the reply named, when it differs from the planned one. */
  claimedPath?: string
}

export interface ReplyOptions {
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

/** A reply read in its format, before it meets any file. */
export interface ReadReply {
  instructions: FileInstruction[]
  /** What it names and asks beyond its content, for the path policy. */
  claims: ReplyClaims
  /** Why it cannot be applied, found while reading; thrown when it is applied. */
  refusal?: InvalidDiffError
  /** The reply says a later diff of a file replaces the one it gave before. */
  replaces?: boolean
}

/**
 * Reads a reply once: the instructions it gives and the claims they make. Headers that ask what
 * no text edit may do are recorded as claims, not thrown, and so are the names of a reply that
 * cannot be read whole, so the path policy can refuse them as what they are; applying the reply
 * refuses them too (editsFromRead).
 */
export function readReply(
  format: ReplyFormatOrAuto,
  reply: string,
  options: Pick<ReplyOptions, 'cutOff'> = {}
): ReadReply {
  const headers: HeaderLog = { sections: [], asks: [] }
  let instructions: FileInstruction[] = []
  let refusal: InvalidDiffError | undefined
  try {
    instructions = parseReply(format, reply, { cutOff: options.cutOff === true, headers })
  } catch (error) {
    if (!(error instanceof InvalidDiffError)) throw error
    refusal = error
  }
  const paths = instructions.flatMap((i) => (i.kind === 'hunks' || i.path === null ? [] : [i.path]))
  return {
    instructions,
    claims: { ...headers, paths },
    ...(refusal ? { refusal } : {}),
    ...(saysItReplaces(reply) ? { replaces: true } : {})
  }
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

/** `editsFromReply` on a reply already read (and its claims judged by the path policy). */
export function editsFromRead(
  { instructions, claims, refusal, replaces }: ReadReply,
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
  const contradicted = files.some((file) =>
    (routed.get(file.path) ?? []).some(
      (i) =>
        i.kind === 'hunks' &&
        file.content !== null &&
        probeLineNumbers(indexOf(file), i.patch.hunks) === 'contradicted'
    )
  )
  const hunkOptions = { ...options, numbersContradicted: contradicted, replaces: replaces === true }
  return files.map((file) => {
    const mine = routed.get(file.path) ?? []
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
    const applied = applyInstructions(file, mine, hunkOptions, claimed ?? undefined, indexOf)
    checkAddedText(file.path, file.content, applied.after)
    return {
      edit: {
        path: file.path,
        operation: file.operation,
        before: file.content,
        after: applied.after
      },
      placements: applied.located.map((place) => place.how),
      located: applied.located,
      ...(claimed ? { claimedPath: claimed } : {})
    }
  })
}

/**
 * The reply read in its format. A reply that holds nothing in that format but is plainly written
 * in another one (the repair prompt, or a model's habit, can bring that about) is read in that.
 */
function parseReply(
  format: ReplyFormatOrAuto,
  reply: string,
  hints: ParseHints
): FileInstruction[] {
  const wanted = format === 'auto' ? detectFormat(reply) : format
  try {
    return parseAs(wanted, reply, hints)
  } catch (error) {
    const rule = error instanceof InvalidDiffError ? error.details.rule : undefined
    const written = writtenIn(reply)
    if (
      !written ||
      written === wanted ||
      !['no-diff', 'no-edits', 'bad-json'].includes(String(rule))
    )
      throw error
    try {
      return parseAs(written, reply, hints)
    } catch {
      throw error
    }
  }
}

/** The format a reply is written in, by its markers; a unified diff when none shows. */
export function detectFormat(reply: string): ReplyFormat {
  return writtenIn(reply) ?? 'udiff'
}

/** Which planned file each part of the reply is for. */
function route(
  instructions: readonly FileInstruction[],
  files: readonly PlannedFile[]
): Map<string, FileInstruction[]> {
  const routed = new Map<string, FileInstruction[]>()
  const add = (path: string, instruction: FileInstruction) =>
    routed.set(path, [...(routed.get(path) ?? []), instruction])
  const named = new Set(instructions.map((i) => i.path).filter((path) => path !== null))
  if (files.length === 1 && named.size <= 1) {
    for (const instruction of instructions) add(files[0]!.path, instruction)
    return routed
  }
  const planned = new Set(files.map((file) => file.path))
  for (const instruction of instructions) {
    const path = instruction.path
    if (instruction.kind === 'hunks' && instruction.patch.namesDisagree) {
      throw patchError(
        `The file names in the diff headers disagree (${[instruction.patch.oldPath, instruction.patch.newPath].join(' / ')}). ` +
          'Name each file you change the same way in "diff --git", "---" and "+++"; renames are not accepted.',
        { kind: 'path-mismatch', ...(path ? { file: path } : {}) }
      )
    }
    if (path !== null && planned.has(path)) {
      add(path, instruction)
      continue
    }
    const request = files.map((file) => file.path).join(', ')
    if (path === null) {
      throw patchError(
        `Part of the reply names no file, and this request is for ${files.length} files (${request}); name the file of every part.`,
        { kind: 'missing-file' }
      )
    }
    throw patchError(
      files.length === 1
        ? `The reply also edits ${path}; this request is for ${request} only. Send the edit for that file alone.`
        : `The reply edits ${path}, which is not one of the files of this request (${request}).`,
      { kind: files.length === 1 ? 'too-many-files' : 'unplanned-file', file: path }
    )
  }
  return routed
}

function applyInstructions(
  file: PlannedFile,
  instructions: readonly FileInstruction[],
  options: ReplyOptions & { numbersContradicted: boolean; replaces: boolean },
  claimed: string | undefined,
  indexOf: (file: PlannedFile) => FileIndex
): { after: string | null; located: HunkPlacement[] } {
  const eol = options.style?.end_of_line === 'crlf' ? '\r\n' : '\n'
  const finalNewline = options.style?.insert_final_newline ?? true
  const fresh = { eol, finalNewline } as const
  if (instructions.some((i) => i.kind === 'delete' || (i.kind === 'hunks' && i.deletes))) {
    if (file.operation !== 'DELETE') {
      throw patchError(
        `The reply deletes ${file.path}, but the plan asks to ${file.operation.toLowerCase()} it. Edit the file instead.`,
        { kind: 'delete-refused', file: file.path }
      )
    }
    return { after: null, located: [] }
  }
  let content = file.content ?? ''
  const located: HunkPlacement[] = []
  // All hunks for the file, even from several sections, are placed in the original together.
  let numbered = 0
  const sections = instructions.flatMap((i) => (i.kind === 'hunks' ? [i.patch] : []))
  const used = sectionsToApply(sections, options.replaces)
  const hunks = used.flatMap((section) => {
    checkHunkEvidence(file, section, claimed)
    const patch = {
      ...section,
      hunks: section.hunks.map((hunk) => ({ ...hunk, number: ++numbered }))
    }
    return repairedHunks(file.path, patch, indexOf(file))
  })
  if (sections.length > 0) {
    let applied
    try {
      applied = applyHunks(file.path, content, hunks, {
        ...fresh,
        numbersContradicted: options.numbersContradicted,
        index: indexOf(file)
      })
    } catch (error) {
      throw revisionRefusal(file.path, used.length, error)
    }
    content = applied.content
    located.push(...applied.located)
  }
  for (const instruction of instructions) {
    switch (instruction.kind) {
      case 'hunks':
        break
      case 'replace': {
        checkNotTruncated(file.path, file.content, instruction.content)
        const existing = content === '' ? undefined : splitText(content)
        const lines = instruction.content === '' ? [] : instruction.content.split('\n')
        content = contentOf(
          lines,
          existing?.eol ?? eol,
          existing ? existing.finalNewline : finalNewline
        )
        break
      }
      case 'search-replace': {
        const applied = applySearchReplace(file.path, content, instruction.blocks, fresh)
        content = applied.content
        located.push(...applied.located)
        break
      }
      case 'json-edits': {
        const applied = applyJsonEdits(file.path, content, instruction.edits, fresh)
        content = applied.content
        located.push(...applied.located)
        break
      }
      case 'delete':
        break
    }
  }
  return { after: content, located }
}

/**
 * Without line numbers a hunk is placed by its lines alone, so the rest of the reply has to be
 * intact: a header that names another path, or that git's `a/`/`b/` rule could not read, leaves
 * nothing to corroborate the place, and the hunk is refused. A new file needs whole "+" hunks.
 */
function checkHunkEvidence(
  file: PlannedFile,
  patch: Extract<FileInstruction, { kind: 'hunks' }>['patch'],
  claimed: string | undefined
): void {
  if (file.content === null && patch.hunks.some((h) => h.lines.some((l) => l.kind !== '+'))) {
    throw patchError(
      `${file.path} does not exist yet: send its whole content as "+" lines of one hunk, from "--- /dev/null" to "+++ b/${file.path}".`,
      { kind: 'create-expected', file: file.path }
    )
  }
  const bare = patch.hunks.findIndex((h) => h.oldStart === null)
  if (bare < 0 || !patch.headed) return
  const named = patch.newPath ?? patch.oldPath
  if (claimed === undefined && patch.prefixed && named === file.path) return
  throw patchError(
    `Hunk ${bare + 1} for ${file.path} has no line numbers, and the header names ${named ?? '/dev/null'}` +
      `${patch.prefixed ? '' : ' without the a/ and b/ prefixes'}, so nothing in the reply confirms where it goes. ` +
      `Send "--- a/${file.path}" and "+++ b/${file.path}" headers and "@@ -<line>,<count> +<line>,<count> @@" hunk headers with the real line numbers.`,
    { kind: 'unanchored-hunk', file: file.path, hunk: bare + 1 }
  )
}
