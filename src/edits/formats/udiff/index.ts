import type { FormatStrategy } from '../format.js'
import { templateBeside } from '../template.js'
import { applyHunkInstructions } from './apply.js'
import { instructionsOfDiff } from './instructions.js'

export { applyHunkInstructions } from './apply.js'
export { extractDiff } from './extract.js'
export { instructionsOfDiff } from './instructions.js'
export { parseUnifiedDiff } from './parse.js'

/** Unified diffs, git-style or plain, bare or wrapped in fences, tags or `{"diff": …}`. */
export const udiff: FormatStrategy<'udiff'> = {
  name: 'udiff',
  template: templateBeside(import.meta.url, 'draft-udiff'),
  resendsWholeFile: false,
  marks: (reply) => /^(diff --git |@@)/m.test(reply) || /^--- .*\r?\n\+\+\+ /m.test(reply),
  parse: (reply, hints) => instructionsOfDiff(reply, hints),
  apply: applyHunkInstructions
}
