import type { Operation } from '../contract/index.js'

/** One file's change, as new contents: every edit format ends here. */
export interface FileEdit {
  path: string
  operation: Operation
  /** Contents before the change (null when the file is created). */
  before: string | null
  /** Contents after the change (null when the file is deleted). */
  after: string | null
}

export interface DiffLine {
  kind: ' ' | '+' | '-'
  text: string
  /** Followed by `\ No newline at end of file`. */
  noEol: boolean
}

export interface Hunk {
  /** The model's line number, used only as a tie-break hint. */
  oldStart: number
  lines: DiffLine[]
}

export interface FilePatch {
  oldPath: string | null
  newPath: string | null
  hunks: Hunk[]
}

/** How a hunk was placed, for the logs. */
export type Placement = 'exact' | 'whitespace' | 'hint'
