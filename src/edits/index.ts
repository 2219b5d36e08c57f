export { detectFormat, editFromReply, editsFromReply, REPLY_FORMATS } from './edit-reply.js'
export type {
  DraftedEdit,
  PlannedFile,
  ReplyFormat,
  ReplyFormatOrAuto,
  ReplyOptions
} from './edit-reply.js'
export { chooseEditFormat, resolveEditFormat } from './choose-format.js'
export { JsonEditsSchema, JsonLineEditSchema } from './json-edits.js'
export type { JsonEdits } from './json-edits.js'
export { renderDiff } from './canonical-diff.js'
export { extractDiff } from './sanitize.js'
export { parseUnifiedDiff } from './udiff.js'
export { applyHunks } from './apply-hunks.js'
export type { PatchError, PatchErrorKind } from './patch-error.js'
export type { FileEdit, FilePatch, Hunk, HunkPlacement, Placement } from './types.js'
