import type { DraftedEdit } from './edit-reply.js'
import { patchError } from './patch-error.js'
import { syntaxGate } from './syntax/index.js'

/**
 * Refuses an edit that leaves a file unparseable when it parsed before (tree-sitter, for the
 * languages the gate knows): INVALID_DIFF with the line, so the retry and the repair loop see it
 * before any validation command runs. A file that was already broken is not held against it.
 */
export async function assertStillParses(edits: readonly DraftedEdit[]): Promise<void> {
  for (const { edit } of edits) {
    if (edit.after === null || edit.after === edit.before) continue
    // Line endings are git's business, not the grammar's: CRLF (or a mix) parses as LF.
    const lf = (text: string) => text.replace(/\r\n/g, '\n')
    const problem = await syntaxGate().introducedError(
      edit.path,
      edit.before === null ? null : lf(edit.before),
      lf(edit.after)
    )
    if (!problem) continue
    const lines = edit.after.split(/\r?\n/)
    const from = Math.max(0, problem.line - 3)
    throw patchError(
      `The edit leaves ${edit.path} unparseable (${syntaxGate().languageOf(edit.path)}): ${problem.message}, at line ${problem.line} of the result. ` +
        'Check the brackets, quotes and indentation of the lines you add, and that every line you change is written out whole.',
      {
        kind: 'syntax-error',
        file: edit.path,
        found_nearby: { line: from + 1, text: lines.slice(from, problem.line + 2) }
      },
      { syntax_line: problem.line, syntax_column: problem.column }
    )
  }
}
