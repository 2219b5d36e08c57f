import type { Operation } from '../contract/index.js'

/** A file the reply may edit: its planned operation and its contents now (null: absent). */
export interface PlannedFile {
  path: string
  operation: Operation
  content: string | null
}

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
  /**
   * The model's old-side line number, used only as a tie-break hint; null when the header
   * carries none (`@@`, `@@ @@`, `@@ ... @@`).
   */
  oldStart: number | null
  /** The header's old-side line count (null when absent); only widens the hint. */
  oldCount?: number | null
  /** Its place among the file's hunks in the reply, for messages (repairs may drop hunks). */
  number?: number
  lines: DiffLine[]
}

export interface FilePatch {
  /** Paths as the headers give them, `a/`/`b/` removed; null for /dev/null or no header. */
  oldPath: string | null
  newPath: string | null
  /** Whether the `---`/`+++` names carried git's `a/` and `b/` prefixes. */
  prefixed: boolean
  /** Whether the section had `---`/`+++` headers at all. */
  headed: boolean
  /** Whether it says `new file mode` (with no hunks: an empty new file). */
  created: boolean
  /** Whether its `diff --git`, `---` and `+++` names disagree with each other. */
  namesDisagree?: boolean
  /**
   * Where the reply ended, for the file whose hunk it ended in: cut off inside that hunk (its last
   * line may be half-written), cut off as the next hunk's header began, or with no sign either
   * way (a bare diff's last line may still be half of a line of the file).
   */
  cutOff?: 'in-hunk' | 'after-hunk' | 'maybe'
  /** 0-based: which of the reply's diff blocks (fenced, or set apart by prose) it stands in. */
  block?: number
  /**
   * A later block of the reply says it replaces this one (final, corrected, …) and gives every
   * file this one's block gives: used only when the reply's diffs of the file cannot all be placed.
   */
  superseded?: boolean
  hunks: Hunk[]
}

/** How a hunk (or search block, or JSON edit) was placed, for the logs. */
export type Placement = 'exact' | 'whitespace' | 'fuzzy' | 'hint'

/** One placed hunk: where it went and how it was found. */
export interface HunkPlacement {
  /** 1-based hunk, block or edit number within its file. */
  hunk: number
  /** 1-based line of the file (before the change) where its old lines start. */
  line: number
  how: Placement
  /** Context lines that differ only in whitespace, or that are slightly damaged. */
  whitespaceLines: number
  fuzzyLines: number
  /** For a place the line number settled among several: how many lines off that number was. */
  hintOffBy?: number
}

/** A parsed reply for one file, whatever the format, before it meets the file. */
export type FileInstruction =
  | { kind: 'hunks'; path: string | null; patch: FilePatch; deletes?: boolean }
  | { kind: 'replace'; path: string | null; content: string }
  | { kind: 'delete'; path: string | null }
  | { kind: 'search-replace'; path: string | null; blocks: SearchReplaceBlock[] }
  | { kind: 'json-edits'; path: string | null; edits: LineEdit[] }

export interface SearchReplaceBlock {
  search: string[]
  replace: string[]
}

export interface LineEdit {
  /** 1-based, inclusive; `end = start - 1` inserts before `start`. */
  start: number
  end: number
  oldText?: string
  newText: string
}

/** One diff section's names as written: prefixes kept, timestamps dropped, null for /dev/null. */
export interface HeaderNames {
  /** The two names of `diff --git a/<x> b/<y>`, when the section has that line. */
  git?: { old: string; new: string }
  old?: string | null
  new?: string | null
}

/** A header asking for what no text edit may do, with the policy rule that refuses it. */
export interface HeaderAsk {
  rule: 'patch-mode' | 'patch-binary' | 'patch-copy-rename' | 'patch-parse'
  kind: 'unsupported-header' | 'unsupported-mode' | 'quoted-path' | 'path-mismatch'
  /** 1-based line of the diff. */
  line: number
  message: string
}

/**
 * Everything a reply claims beyond its content, read once by the format that parsed it: the
 * names its diff headers give and what they ask, and the paths other formats name. The path
 * policy judges these before the reply meets a file.
 */
export interface ReplyClaims extends HeaderLog {
  paths: string[]
}

/** Where a diff's parser writes every section's names and every ask, as it meets them. */
export interface HeaderLog {
  sections: HeaderNames[]
  asks: HeaderAsk[]
}
