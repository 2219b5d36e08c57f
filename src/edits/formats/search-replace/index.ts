import type { FormatStrategy } from '../format.js'
import { parseSearchReplace } from './search-replace.js'

export { applySearchReplace } from './search-replace.js'

/** Aider-style `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks under a path line. */
export const searchReplace: FormatStrategy<'search-replace'> = {
  name: 'search-replace',
  template: 'draft-search-replace',
  resendsWholeFile: false,
  marks: (reply) => /^<{5,9} ?SEARCH\s*$/m.test(reply),
  parse: (reply) =>
    parseSearchReplace(reply).map(({ path, blocks }) => ({ kind: 'search-replace', path, blocks }))
}
