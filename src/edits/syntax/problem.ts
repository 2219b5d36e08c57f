/** A problem in a parsed file: 1-based line and column, and what is wrong there. */
export interface SyntaxProblem {
  line: number
  column: number
  message: string
}
