import { clip, patchError } from '../../patch-error.js'
import type { DiffLine, HeaderLog, Hunk } from '../../types.js'
import {
  askRefused,
  checkIndex,
  checkNames,
  fileMode,
  gitNames,
  hasPrefix,
  headerName,
  isAskingHeader,
  stripPrefix,
  type Ask,
  type Section
} from './parse-headers.js'

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/

type OpenHunk = Hunk & { looseBlanks: number }

/**
 * Reads a diff's lines (parse.ts has the grammar) into sections, one method per rule: a line
 * inside a hunk, a `diff` line, a `---`/`+++` pair, a hunk header. What a header asks goes to
 * the log; a hunk that cannot be read past is thrown.
 */
export class SectionReader {
  readonly sections: Section[] = []
  private section: Section | undefined
  private hunk: OpenHunk | undefined
  private readonly ask: Ask

  constructor(
    private readonly lines: readonly string[],
    private readonly headers: HeaderLog
  ) {
    this.ask = (rule, kind, line, message) => headers.asks.push({ rule, kind, line, message })
  }

  read(): Section[] {
    for (let i = 0; i < this.lines.length; i++) {
      if (this.hunk && this.readHunkLine(i)) continue
      i = this.readHeaderLine(i)
    }
    this.endHunk()
    return this.sections
  }

  /** hunk-line: whether line `i` belongs to the open hunk (else the hunk ends there). */
  private readHunkLine(i: number): boolean {
    const hunk = this.hunk!
    const line = this.lines[i]!
    if (/^[ +-]/.test(line) && !isFileHeader(this.lines, i)) {
      hunk.lines.push({ kind: line[0] as DiffLine['kind'], text: line.slice(1), noEol: false })
      hunk.looseBlanks = 0
      return true
    }
    if (line === '') {
      hunk.lines.push({ kind: ' ', text: '', noEol: false })
      hunk.looseBlanks++
      return true
    }
    if (line.startsWith('\\')) {
      const previous = hunk.lines[hunk.lines.length - 1]
      if (previous) previous.noEol = true
      return true
    }
    if (strayInHunk(this.lines, i)) {
      const count = this.sections.reduce((n, p) => n + p.hunks.length, 0)
      throw patchError(
        `Line ${i + 1} of the diff ("${clip(line)}") stands among the lines of hunk ${count} without a " ", "+" or "-" in front, so the lines after it cannot be read. Start every context line with a space.`,
        { kind: 'contaminated-diff', line: i + 1 }
      )
    }
    this.endHunk()
    return false
  }

  /** Any line outside a hunk: a header read, or prose skipped. Returns the last line it used. */
  private readHeaderLine(i: number): number {
    const line = this.lines[i]!
    const at = i + 1
    if (askRefused(line, at, this.ask)) return i
    if (fileMode(line, at, this.ask) === 'new' && this.section) this.section.created = true
    if (line.startsWith('index ')) checkIndex(line, at, this.ask)
    if (line.startsWith('diff ')) this.readGitHeader(i)
    else if (line.startsWith('--- ') && this.lines[i + 1]?.startsWith('+++ ')) {
      this.readFileHeader(i)
      return i + 1
    } else if (line.startsWith('@@')) this.readHunkHeader(i)
    return i
  }

  /** git-header: `diff --git a/<path> b/<path>` starts a section. */
  private readGitHeader(i: number): void {
    const target = this.startSection(i)
    const names = gitNames(this.lines[i]!, i + 1, this.ask)
    if (names) target.gitNames = names
    target.names.git = names && { old: `a/${names.old}`, new: `b/${names.new}` }
  }

  /** file-header: `--- <old>` and `+++ <new>`, in the git header's section or a new one. */
  private readFileHeader(i: number): void {
    const section = this.section
    const target =
      section && section.hunks.length === 0 && !section.headed ? section : this.startSection(i)
    const at = i + 1
    const oldName = headerName(this.lines[i]!.slice(4), at, this.ask)
    const newName = headerName(this.lines[i + 1]!.slice(4), at + 1, this.ask)
    target.headed = true
    target.names.old = oldName
    target.names.new = newName
    target.oldPath = stripPrefix(oldName, 'a/')
    target.newPath = stripPrefix(newName, 'b/')
    target.prefixed = hasPrefix(oldName, 'a/') && hasPrefix(newName, 'b/')
    checkNames(target, at, this.ask)
  }

  /** hunk-header: `@@ -<start>[,<count>] +<start>[,<count>] @@`, or a bare `@@`; opens a hunk. */
  private readHunkHeader(i: number): void {
    const target = this.section ?? this.startSection(i)
    const numbers = HUNK_HEADER.exec(this.lines[i]!)
    this.hunk = {
      oldStart: numbers ? Number(numbers[1]) : null,
      oldCount: numbers ? Number(numbers[2] ?? 1) : null,
      lines: [],
      looseBlanks: 0
    }
    target.hunks.push(this.hunk)
  }

  private startSection(at: number): Section {
    const section: Section = {
      at,
      oldPath: null,
      newPath: null,
      prefixed: false,
      headed: false,
      created: false,
      hunks: [],
      names: {}
    }
    this.section = section
    this.sections.push(section)
    this.headers.sections.push(section.names)
    return section
  }

  private endHunk(): void {
    // Blank lines with no leading space at the end of a hunk are the reply's own spacing.
    const hunk = this.hunk
    if (hunk) hunk.lines.splice(hunk.lines.length - hunk.looseBlanks, hunk.looseBlanks)
    this.hunk = undefined
  }
}

/**
 * A line with no prefix inside a hunk, with more hunk lines after it (a context line that lost
 * its leading space): the hunk cannot be read past it, and dropping what follows would drop
 * part of the change silently.
 */
export function strayInHunk(lines: readonly string[], i: number): boolean {
  const line = lines[i]!
  const next = lines[i + 1]
  if (next === undefined || !/^[+-]|^ \S|^ $/.test(next)) return false
  if (/^(@@|diff |index |new file mode|deleted file mode)/.test(line) || isAskingHeader(line))
    return false
  return !(line.startsWith('--- ') && next.startsWith('+++ '))
}

/** `--- path`, `+++ path`, `@@`: the next file of a plain diff, not a removed and an added line. */
function isFileHeader(lines: readonly string[], i: number): boolean {
  return (
    lines[i]!.startsWith('--- ') &&
    lines[i + 1]?.startsWith('+++ ') === true &&
    lines[i + 2]?.startsWith('@@') === true
  )
}
