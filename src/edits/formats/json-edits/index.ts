import { applyHunkInstructions, instructionsOfDiff } from '../udiff/index.js'
import type { FormatStrategy } from '../format.js'
import { templateBeside } from '../template.js'
import { jsonOf, unwrapToolCall } from '../reply-json.js'
import { applyJsonEdits, jsonEditsSchema, parseJsonEdits } from './json-edits.js'

export { jsonEditsSchema } from './json-edits.js'

/** Line-numbered edits as JSON (`{"edits": [...]}`), possibly inside a tool call. */
export const jsonEdits: FormatStrategy<'json-edits'> = {
  name: 'json-edits',
  template: templateBeside(import.meta.url, 'draft-json-edits'),
  resendsWholeFile: false,
  replySchema: {
    name: 'apply_edits',
    get schema() {
      return jsonEditsSchema()
    }
  },
  marks: (reply) => {
    const json = jsonOf(reply)
    return (
      json !== undefined && unwrapToolCall(json, (o) => ('edits' in o ? true : undefined)) === true
    )
  },
  parse: (reply, hints) => {
    const parsed = parseJsonEdits(reply)
    if (parsed.kind === 'diff') return instructionsOfDiff(parsed.diff, hints)
    return parsed.files.map(({ path, edits }) => ({ kind: 'json-edits', path, edits }))
  },
  // A reply may carry a diff as `{"diff": …}`: that part is applied as a diff is.
  apply: (file, instructions, context) => {
    const hunks = applyHunkInstructions(file, instructions, context)
    let content = hunks.content
    const located = [...hunks.located]
    for (const instruction of instructions) {
      if (instruction.kind !== 'json-edits') continue
      const applied = applyJsonEdits(file.path, content, instruction.edits, context.fresh)
      content = applied.content
      located.push(...applied.located)
    }
    return { content, located }
  }
}
