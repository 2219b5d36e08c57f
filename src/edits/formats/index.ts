import type { FileInstruction } from '../types.js'
import type { FormatStrategy, ParseHints } from './format.js'
import type { FormatTemplate } from './template.js'
import { jsonEdits } from './json-edits/index.js'
import { searchReplace } from './search-replace/index.js'
import { udiff } from './udiff/index.js'
import { wholeFile } from './whole-file/index.js'

/** The registry: every edit format a reply may be written in (the first is the default). */
const FORMATS = [udiff, searchReplace, jsonEdits, wholeFile] as const
/** The order markers are tested in: the most distinctive first, a bare diff last. */
const BY_MARKERS = [wholeFile, searchReplace, jsonEdits, udiff] as const

export type ReplyFormat = (typeof FORMATS)[number]['name']
/** A format, or `auto`: read the reply in whichever format it is written. */
export type ReplyFormatOrAuto = ReplyFormat | 'auto'
const REPLY_FORMATS: readonly ReplyFormat[] = FORMATS.map((format) => format.name)
/** The `edit-format` setting's values: a format, or `auto`. */
export const EDIT_FORMAT_SETTINGS: readonly ReplyFormatOrAuto[] = [...REPLY_FORMATS, 'auto']

/** Every format's draft prompt, for the bundle script to copy beside the bundle. */
export const FORMAT_TEMPLATES: readonly FormatTemplate[] = FORMATS.map((format) => format.template)

/** Everything one format needs: its prompt, its reply schema, whether it resends the file. */
export function formatNamed(name: ReplyFormat): FormatStrategy<ReplyFormat> {
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

export type { ApplyContext, ParseHints } from './format.js'
export { jsonEditsSchema } from './json-edits/index.js'
export { extractDiff, parseUnifiedDiff } from './udiff/index.js'
