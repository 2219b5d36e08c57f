import { z } from 'zod'
import { lazySchema } from '../../../contract/index.js'
import { indexLines, locate } from '../../locate.js'
import { patchError } from '../../patch-error.js'
import { jsonOf, unwrapToolCall } from '../reply-json.js'
import { joinText, linesOf, splitText } from '../../text-file.js'
import type { HunkPlacement, LineEdit } from '../../types.js'

/** One edit of `apply_edits`: lines `start`..`end` (1-based, inclusive) become `newText`. */
const jsonLineEditSchema = lazySchema(() =>
  z.object({
    range: z
      .object({
        start: z.number().int().describe('First line to replace, 1-based.'),
        end: z
          .number()
          .int()
          .describe('Last line to replace, inclusive; start - 1 to insert before line start.')
      })
      .strict(),
    oldText: z
      .string()
      .nullable()
      .optional()
      .describe('The current text of lines start..end, exactly; checked before the edit is made.'),
    newText: z.string().describe('The text that replaces those lines ("" removes them).')
  })
)

/** The `apply_edits` payload, for structured outputs (`response_format`) and tool calls. */
export const jsonEditsSchema = lazySchema(() =>
  z
    .object({
      path: z.string().min(1).describe('The file to edit, relative to the repository root.'),
      edits: z.array(jsonLineEditSchema()).min(1)
    })
    .describe('apply_edits: line-range edits to one file, applied bottom-up.')
)

const SEND_JSON_EDITS =
  'Reply with one JSON object only: {"path": "<path>", "edits": [{"range": {"start": <line>, "end": <line>}, ' +
  '"oldText": "<current lines>", "newText": "<new lines>"}]}.'

type JsonReply =
  { kind: 'edits'; files: { path: string; edits: LineEdit[] }[] } | { kind: 'diff'; diff: string }

/**
 * Reads an `apply_edits` reply: the JSON object (or a list of them), possibly fenced or inside a
 * tool call such as `{"name": "apply_edits", "arguments": …}`. A `{diff, reasoning}` reply is
 * passed on as a unified diff.
 */
export function parseJsonEdits(reply: string): JsonReply {
  const value = jsonOf(reply)
  if (value === undefined) {
    throw patchError(`The reply is not valid JSON. ${SEND_JSON_EDITS}`, { kind: 'bad-json' })
  }
  const diff = unwrapToolCall(value, (object) =>
    typeof object.diff === 'string' && !('edits' in object) ? object.diff : undefined
  )
  if (diff !== undefined) return { kind: 'diff', diff }
  const payloads = unwrapToolCall(value, (object) => ('edits' in object ? [object] : undefined)) ??
    (Array.isArray(value) ? value : undefined) ?? [value]
  const files = payloads.map((payload, i) => {
    const parsed = jsonEditsSchema().safeParse(payload)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      const where = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
      throw patchError(
        `The JSON edits${payloads.length > 1 ? ` (object ${i + 1})` : ''} do not match the apply_edits shape${where}: ${issue.message}. ${SEND_JSON_EDITS}`,
        { kind: 'bad-json' }
      )
    }
    return {
      path: parsed.data.path,
      edits: parsed.data.edits.map((edit) => ({
        start: edit.range.start,
        end: edit.range.end,
        newText: edit.newText,
        ...(typeof edit.oldText === 'string' ? { oldText: edit.oldText } : {})
      }))
    }
  })
  return { kind: 'edits', files }
}

interface JsonEditsResult {
  content: string
  located: HunkPlacement[]
}

/**
 * Applies line-range edits bottom-up against the original numbering. A range outside the file,
 * two edits that overlap (or insert at the same place), or an `oldText` that differs from the
 * lines in the range (line endings and trailing spaces aside) is refused; the message says where
 * `oldText` is when it is elsewhere.
 */
export function applyJsonEdits(
  path: string,
  before: string,
  edits: readonly LineEdit[],
  newFile: { eol: '\n' | '\r\n'; finalNewline: boolean }
): JsonEditsResult {
  const file = splitText(before, newFile.eol)
  const n = file.lines.length
  const numbered = edits.map((edit, i) => ({ ...edit, number: i + 1 }))
  for (const edit of numbered) {
    if (edit.start < 1 || edit.start > n + 1 || edit.end < edit.start - 1 || edit.end > n) {
      throw patchError(
        `Edit ${edit.number} for ${path} has range ${edit.start}-${edit.end}, but the file has ${n} lines: ` +
          `use 1 ≤ start ≤ ${n + 1} and start - 1 ≤ end ≤ ${n} (end = start - 1 inserts before line start).`,
        { kind: 'range-out-of-bounds', file: path, hunk: edit.number }
      )
    }
  }
  const sorted = [...numbered].sort((a, b) => b.start - a.start || b.end - a.end)
  for (let i = 1; i < sorted.length; i++) {
    const lower = sorted[i - 1]!
    const upper = sorted[i]!
    const sameInsert =
      upper.start === lower.start && upper.end < upper.start && lower.end < lower.start
    if (upper.end >= lower.start || sameInsert) {
      throw patchError(
        `Edits ${upper.number} and ${lower.number} for ${path} overlap (lines ${upper.start}-${upper.end} and ${lower.start}-${lower.end}); merge them into one edit.`,
        { kind: 'overlapping-edits', file: path, hunk: lower.number }
      )
    }
  }
  const index = indexLines(file.lines)
  const located: HunkPlacement[] = []
  for (const edit of numbered) {
    const current = file.lines.slice(edit.start - 1, edit.end)
    if (edit.oldText !== undefined) {
      const expected = linesOf(edit.oldText)
      if (!sameLines(current, expected)) throw mismatch(path, index, edit, current, expected)
    }
    located.push({
      hunk: edit.number,
      line: edit.start,
      how: edit.oldText !== undefined ? 'exact' : 'hint',
      whitespaceLines: 0,
      fuzzyLines: 0
    })
  }
  const lines = [...file.lines]
  const ends = [...file.ends]
  for (const edit of sorted) {
    const replacement = linesOf(edit.newText)
    const removed = edit.end - edit.start + 1
    const lastEnd = removed > 0 ? ends[edit.end - 1]! : undefined
    lines.splice(edit.start - 1, removed, ...replacement)
    ends.splice(edit.start - 1, removed, ...replacement.map(() => file.eol))
    if (lastEnd !== undefined && replacement.length > 0)
      ends[edit.start - 2 + replacement.length] = lastEnd
  }
  for (let i = 0; i < ends.length - 1; i++) if (ends[i] === '') ends[i] = file.eol
  if (ends.length > 0) {
    const finalNewline = n === 0 ? newFile.finalNewline : file.finalNewline
    ends[ends.length - 1] = finalNewline ? ends[ends.length - 1] || file.eol : ''
  }
  return { content: joinText({ lines, ends }), located }
}

const sameLines = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((line, i) => line.trimEnd() === b[i]!.trimEnd())

function mismatch(
  path: string,
  index: ReturnType<typeof indexLines>,
  edit: LineEdit & { number: number },
  current: string[],
  expected: string[]
) {
  let elsewhere = ''
  if (expected.some((line) => line.trim() !== '')) {
    try {
      const found = locate(index, {
        path,
        number: edit.number,
        noun: 'Edit',
        old: expected.map((text) => ({ text, removed: true })),
        hint: edit.start - 1,
        allowTypos: false
      })
      elsewhere = ` That text is at lines ${found.at + 1}-${found.at + expected.length}: use that range.`
    } catch {
      elsewhere =
        ' That text is not in the file as written: copy oldText exactly from the current content.'
    }
  }
  return patchError(
    `Edit ${edit.number} for ${path}: oldText does not match lines ${edit.start}-${edit.end}.${elsewhere}`,
    {
      kind: 'old-text-mismatch',
      file: path,
      hunk: edit.number,
      expected,
      found_nearby: { line: edit.start, text: current }
    }
  )
}
