import type { FileInstruction } from '../types.js'
import type { EditFormat, ParseHints } from './format.js'
import { jsonEdits } from './json-edits/index.js'
import { searchReplace } from './search-replace/index.js'
import { udiff } from './udiff/index.js'
import { wholeFile } from './whole-file/index.js'

/** The registry: every edit format a reply may be written in. */
const FORMATS = [udiff, searchReplace, jsonEdits, wholeFile] as const
/** The order markers are tested in: the most distinctive first, a bare diff last. */
const BY_MARKERS = [wholeFile, searchReplace, jsonEdits, udiff] as const

export type ReplyFormat = (typeof FORMATS)[number]['name']
/** A format, or `auto`: read the reply in whichever format it is written. */
export type ReplyFormatOrAuto = ReplyFormat | 'auto'
export const REPLY_FORMATS: readonly ReplyFormat[] = FORMATS.map((format) => format.name)

function formatNamed(name: ReplyFormat): EditFormat<ReplyFormat> {
  return FORMATS.find((format) => format.name === name)!
}

/** The format a reply is plainly written in, by its markers; undefined when none shows. */
export function writtenIn(reply: string): ReplyFormat | undefined {
  return BY_MARKERS.find((format) => format.marks(reply))?.name
}

export function parseAs(
  name: ReplyFormat,
  reply: string,
  hints: ParseHints = {}
): FileInstruction[] {
  return formatNamed(name).parse(reply, hints)
}

export type { EditFormat, ParseHints } from './format.js'
export { applyJsonEdits, JsonEditsSchema, JsonLineEditSchema } from './json-edits/index.js'
export type { JsonEdits } from './json-edits/index.js'
export { applySearchReplace } from './search-replace/index.js'
export { extractDiff, parseUnifiedDiff, repairedHunks } from './udiff/index.js'
