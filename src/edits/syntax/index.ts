import { languageOfPath } from './languages.js'
import { loadLanguage, parserFor } from './loader.js'
import type { SyntaxProblem } from './problem.js'
import { firstProblem, parseErrorSites } from './problems.js'

/** Files larger than this (in UTF-16 code units, about bytes for code) are not checked. */
const MAX_CHECKED_SIZE = 2 * 1024 * 1024

/** A gate that refuses the parse errors an edit introduces, by tree-sitter. */
interface SyntaxGate {
  /** The language tree-sitter would parse this path as, or null when none is known. */
  languageOf(path: string): string | null
  /**
   * The first parse error `after` has, when `before` (null: file is new) had none and the path's
   * language is known; for a `before` that had errors, the first error of `after` from the edit
   * on, when it has more places the parser must recover than `before` had; otherwise null.
   */
  introducedError(path: string, before: string | null, after: string): Promise<SyntaxProblem | null>
}

let gate: SyntaxGate | undefined

/**
 * The process-wide gate. web-tree-sitter and each grammar are loaded lazily, once, on first use
 * for that language; a grammar that cannot be loaded turns the gate off for its language.
 */
export function syntaxGate(): SyntaxGate {
  gate ??= { languageOf: languageOfPath, introducedError }
  return gate
}

async function introducedError(
  path: string,
  before: string | null,
  after: string
): Promise<SyntaxProblem | null> {
  const language = languageOfPath(path)
  if (language === null || before === after) return null
  if (after.length > MAX_CHECKED_SIZE || (before?.length ?? 0) > MAX_CHECKED_SIZE) return null
  const grammar = await loadLanguage(language)
  if (grammar === null) return null
  const parser = await parserFor(grammar)
  const check = (text: string): SyntaxProblem | null => {
    parser.setLanguage(grammar)
    const tree = parser.parse(text)
    if (tree === null) return null
    try {
      return firstProblem(tree, language, text)
    } finally {
      tree.delete()
    }
  }
  // `after` first: a clean result, the usual one, needs no second parse.
  const problem = check(after)
  if (problem === null || before === null) return problem
  if (check(before) === null) return problem
  // A file that was already broken (half of real C files, for their macros) is held to what it
  // was: the edit may not add places where the parser has to recover.
  const sitesOf = (text: string): SyntaxProblem[] => {
    parser.setLanguage(grammar)
    const tree = parser.parse(text)
    if (tree === null) return []
    try {
      return parseErrorSites(tree, text)
    } finally {
      tree.delete()
    }
  }
  const now = sitesOf(after)
  if (now.length <= sitesOf(before).length) return null
  const changed = firstChangedLine(before, after)
  return now.find((site) => site.line >= changed) ?? now[0]!
}

/** The 1-based line where `after` first differs from `before`. */
function firstChangedLine(before: string, after: string): number {
  const old = before.split('\n')
  const now = after.split('\n')
  let line = 0
  while (line < old.length && line < now.length && old[line] === now[line]) line++
  return line + 1
}

export { syntaxOutline, type SyntaxOutline } from './outline.js'
