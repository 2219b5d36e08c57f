import type { EditFormat } from '../format.js'
import { parseSearchReplace } from './search-replace.js'

export { applySearchReplace } from './search-replace.js'

/** Aider-style `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks under a path line. */
export const searchReplace: EditFormat<'search-replace'> = {
  name: 'search-replace',
  marks: (reply) => /^<{5,9} ?SEARCH\s*$/m.test(reply),
  parse: (reply) =>
    parseSearchReplace(reply).map(({ path, blocks }) => ({ kind: 'search-replace', path, blocks }))
}
