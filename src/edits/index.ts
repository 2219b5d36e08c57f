export { editFromRead, editFromReply, editsFromRead, editsFromReply } from './edit-reply.js'
export { detectFormat, readReply, type ReadReply } from './read-reply.js'
export { EDIT_FORMAT_SETTINGS, formatNamed, REPLY_FORMATS } from './formats/index.js'
export type { FormatStrategy, ReplyFormat, ReplyFormatOrAuto } from './formats/index.js'
export type { DraftedEdit, PlannedFile, ReplyOptions } from './edit-reply.js'
export { chooseEditFormat, resolveEditFormat, WHOLE_FILE_MAX_LINES } from './formats/choose.js'
export { jsonEditsSchema, jsonLineEditSchema } from './formats/index.js'
export { renderDiff } from './canonical-diff.js'
export { extractDiff, parseUnifiedDiff } from './formats/index.js'
export { applyHunks } from './apply-hunks.js'
export { assertStillParses } from './parse-check.js'
export type { PatchError, PatchErrorKind } from './patch-error.js'
export type {
  FileEdit,
  FilePatch,
  HeaderAsk,
  HeaderNames,
  Hunk,
  HunkPlacement,
  Placement,
  ReplyClaims
} from './types.js'
export { syntaxOutline, type SyntaxOutline } from './syntax/index.js'
