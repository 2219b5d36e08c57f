import type { FormatStrategy } from '../format.js'
import { parseWholeFile } from './whole-file.js'

/** `^^^<path>` … `^^^end` blocks holding a file's whole new content (`^^^delete` deletes it). */
export const wholeFile: FormatStrategy<'whole-file'> = {
  name: 'whole-file',
  template: 'draft-whole-file',
  resendsWholeFile: true,
  marks: (reply) => /^\^\^\^\s*\S/m.test(reply) && /^\^\^\^\s*(end|delete)\s*$/m.test(reply),
  parse: (reply) =>
    parseWholeFile(reply).map((block) =>
      block.kind === 'delete'
        ? { kind: 'delete', path: block.path }
        : { kind: 'replace', path: block.path, content: block.lines.join('\n') }
    )
}
