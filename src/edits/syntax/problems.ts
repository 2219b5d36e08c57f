import type { Node, Tree } from 'web-tree-sitter'
import { strayFence } from './fence.js'
import type { SyntaxProblem } from './problem.js'
import { pythonIndentProblem } from './python-indent.js'

/**
 * The first problem of a parsed file in document order, or null when it parsed cleanly. A
 * Markdown fence line in the code comes first wherever it is: the errors it causes can start
 * before it (in JS the line above runs on into a tagged template).
 */
export function firstProblem(tree: Tree, language: string, text: string): SyntaxProblem | null {
  const fence = strayFence(tree.rootNode, text)
  if (fence !== null) return fence
  const found = [
    tree.rootNode.hasError ? firstParseError(tree.rootNode, text) : null,
    language === 'python' ? pythonIndentProblem(tree.rootNode, text) : null
  ]
  let first: SyntaxProblem | null = null
  for (const problem of found) {
    if (problem === null) continue
    if (first === null || problem.line < first.line) first = problem
    else if (problem.line === first.line && problem.column < first.column) first = problem
  }
  return first
}

/**
 * Every place the parser had to recover (an ERROR or MISSING node, not counting those inside
 * another), in document order: what a file that was already broken is compared by.
 */
export function parseErrorSites(tree: Tree, text: string): SyntaxProblem[] {
  const sites: SyntaxProblem[] = []
  const walk = (node: Node) => {
    if (node.isMissing) sites.push(missing(node))
    else if (node.isError) sites.push(unexpected(node, text))
    else if (node.hasError) for (const child of node.children) walk(child)
  }
  walk(tree.rootNode)
  return sites
}

/**
 * The first ERROR or MISSING node below `node`, in document order. An ERROR node is reported at
 * its first token of its own (the children it holds whole parsed before the error began), so a
 * stray line is named, not the statement before it that the parser tried to extend.
 */
function firstParseError(node: Node, text: string): SyntaxProblem | null {
  if (node.isMissing) return missing(node)
  if (node.isError) return unexpected(node, text)
  for (const child of node.children) {
    if (child.isMissing || child.isError || child.hasError) {
      const found = firstParseError(child, text)
      if (found !== null) return found
    }
  }
  return null
}

function missing(node: Node): SyntaxProblem {
  const what = node.isNamed ? node.type.replace(/_/g, ' ') : quote(node.type)
  return at(node, `missing ${what}`)
}

function unexpected(error: Node, text: string): SyntaxProblem {
  const end = text.trimEnd().length
  if (error.endIndex >= end && error.startPosition.row < error.endPosition.row) {
    return atEnd(error, text.slice(0, end))
  }
  for (const child of error.children) {
    if (child.isMissing) return missing(child)
    if (child.isError) return unexpected(child, text)
    if (child.childCount === 0 && !child.isExtra && child.endIndex > child.startIndex) {
      return at(child, `unexpected ${quote(firstLine(child.text))}`)
    }
    if (child.hasError) {
      const inner = firstParseError(child, text)
      if (inner !== null) return inner
    }
  }
  if (error.endIndex === error.startIndex) return at(error, 'unexpected end of file')
  return at(error, `unexpected ${quote(firstLine(error.text))}`)
}

/**
 * An ERROR node that runs over several lines to the end of the file: the file ended inside
 * something still open (an unclosed bracket or block, a half-written last line). Reported at
 * the last line, naming the line where the unfinished part began.
 */
function atEnd(error: Node, text: string): SyntaxProblem {
  const line = text.split('\n').length
  const column = text.length - text.lastIndexOf('\n')
  const began = error.startPosition.row + 1
  return {
    line,
    column,
    message: `syntax error at line ${line}: unexpected end of file (what began at line ${began} is not closed)`
  }
}

function at(node: Node, what: string): SyntaxProblem {
  const line = node.startPosition.row + 1
  return {
    line,
    column: node.startPosition.column + 1,
    message: `syntax error at line ${line}: ${what}`
  }
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0].trimEnd()
  return line.length > 40 ? `${line.slice(0, 40)}…` : line
}

/** Code in backticks; one that holds a backtick itself goes in double quotes. */
function quote(code: string): string {
  return code.includes('`') ? JSON.stringify(code) : `\`${code}\``
}
