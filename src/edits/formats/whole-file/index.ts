import { checkNotTruncated } from '../../added-text.js'
import { contentOf, splitText } from '../../text-file.js'
import type { FormatStrategy } from '../format.js'
import { templateBeside } from '../template.js'
import { parseWholeFile } from './whole-file.js'

/** `^^^<path>` … `^^^end` blocks holding a file's whole new content (`^^^delete` deletes it). */
export const wholeFile: FormatStrategy<'whole-file'> = {
  name: 'whole-file',
  template: templateBeside(import.meta.url, 'draft-whole-file'),
  resendsWholeFile: true,
  marks: (reply) => /^\^\^\^\s*\S/m.test(reply) && /^\^\^\^\s*(end|delete)\s*$/m.test(reply),
  parse: (reply) =>
    parseWholeFile(reply).map((block) =>
      block.kind === 'delete'
        ? { kind: 'delete', path: block.path }
        : { kind: 'replace', path: block.path, content: block.lines.join('\n') }
    ),
  apply: (file, instructions, { fresh }) => {
    let content = file.content ?? ''
    for (const instruction of instructions) {
      if (instruction.kind !== 'replace') continue
      checkNotTruncated(file.path, file.content, instruction.content)
      // A file that has lines keeps its own line endings and final newline.
      const existing = content === '' ? undefined : splitText(content)
      const lines = instruction.content === '' ? [] : instruction.content.split('\n')
      content = contentOf(
        lines,
        existing?.eol ?? fresh.eol,
        existing ? existing.finalNewline : fresh.finalNewline
      )
    }
    return { content, located: [] }
  }
}
