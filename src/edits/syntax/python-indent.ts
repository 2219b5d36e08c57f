import type { Node } from 'web-tree-sitter'
import type { SyntaxProblem } from './problem.js'

/**
 * Python's indentation errors, which tree-sitter-python's parser lets through without an ERROR
 * node: a statement indented unlike the ones before it in its block ("unexpected indent",
 * "unindent does not match any outer indentation level") and a compound statement whose block
 * is empty ("expected an indented block"). Only statements that begin their line are compared,
 * so `if x: a = 1; b = 2` is left alone.
 */
export function pythonIndentProblem(root: Node, text: string): SyntaxProblem | null {
  const lines = text.split('\n')
  let first: SyntaxProblem | null = null
  const keep = (problem: SyntaxProblem | null) => {
    if (problem === null) return
    if (first === null || problem.line < first.line) first = problem
  }
  keep(blockProblem(root, lines, 0))
  for (const block of root.descendantsOfType('block')) {
    if (block.namedChildCount === 0 || block.namedChildren.every(isComment)) {
      keep(emptyBlock(block, lines))
      continue
    }
    keep(blockProblem(block, lines, null))
  }
  return first
}

/** The first statement of the block that is not at the column of the others (`expected`). */
function blockProblem(block: Node, lines: string[], expected: number | null): SyntaxProblem | null {
  let column = expected
  let previous: Node | null = null
  for (const statement of block.namedChildren) {
    if (isComment(statement) || !beginsLine(statement, lines)) continue
    const at = statement.startPosition.column
    if (column === null) column = at
    else if (at !== column) {
      const before = previous === null ? column : indentOf(lines[previous.endPosition.row])
      const what =
        at > before ? 'unexpected indent' : 'unindent does not match any outer indentation level'
      return problem(statement.startPosition.row, at, what)
    }
    previous = statement
  }
  return null
}

/** A block without statements: the header's line ended and nothing was indented under it. */
function emptyBlock(block: Node, lines: string[]): SyntaxProblem {
  const header = block.parent
  const headerLine = (header ?? block).startPosition.row
  let row = block.endPosition.row + 1
  while (row < lines.length && /^\s*(#.*)?$/.test(lines[row])) row++
  const line = Math.min(row, lines.length - 1)
  const kind = header === null ? 'statement' : header.type.replace(/_/g, ' ')
  return problem(
    line,
    indentOf(lines[line] ?? ''),
    `expected an indented block after ${kind} on line ${headerLine + 1}`
  )
}

function isComment(node: Node): boolean {
  return node.type === 'comment'
}

function beginsLine(node: Node, lines: string[]): boolean {
  const { row, column } = node.startPosition
  return /^\s*$/.test(lines[row].slice(0, column))
}

function indentOf(line: string): number {
  return /^\s*/.exec(line)![0].length
}

function problem(row: number, column: number, what: string): SyntaxProblem {
  const line = row + 1
  return { line, column: column + 1, message: `indentation error at line ${line}: ${what}` }
}
