import type { HunkPlacement } from '../../types.js'
import type { FormatStrategy } from '../format.js'
import { templateBeside } from '../template.js'
import { applySearchReplace, parseSearchReplace } from './search-replace.js'

/** Aider-style `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks under a path line. */
export const searchReplace: FormatStrategy<'search-replace'> = {
  name: 'search-replace',
  template: templateBeside(import.meta.url, 'draft-search-replace'),
  resendsWholeFile: false,
  marks: (reply) => /^<{5,9} ?SEARCH\s*$/m.test(reply),
  parse: (reply) =>
    parseSearchReplace(reply).map(({ path, blocks }) => ({ kind: 'search-replace', path, blocks })),
  apply: (file, instructions, context) => {
    let content = file.content ?? ''
    const located: HunkPlacement[] = []
    for (const instruction of instructions) {
      if (instruction.kind !== 'search-replace') continue
      const applied = applySearchReplace(file.path, content, instruction.blocks, context.fresh)
      content = applied.content
      located.push(...applied.located)
    }
    return { content, located }
  }
}
