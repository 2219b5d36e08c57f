/**
 * A git diff as the corpus builder damages it: file sections of hunks whose lines remember what
 * was done to them, so the builder can judge afterwards whether the intent is still recoverable.
 */

export interface DiffLine {
  kind: ' ' | '-' | '+' | '\\'
  text: string
  /** A context line whose text was changed (a typo): it no longer identifies its place. */
  damaged?: boolean
  /** A removed line replaced by one that is not in the file. */
  hallucinated?: boolean
  /** A line whose indentation was rewritten (tabs as spaces or spaces as tabs). */
  drifted?: boolean
  /** A blank context line written without its leading space. */
  noSpace?: boolean
}

export interface DiffHunk {
  oldStart: number
  oldCount: number
  newStart: number
  newCount: number
  /** The text git writes after the second `@@` (the enclosing function), with its space. */
  section: string
  /** The header exactly as git wrote it, until a mutation changes the numbers. */
  header: string | null
  lines: DiffLine[]
  /** Where the hunk's old side really starts in the file (line-offset moves `oldStart` only). */
  trueOldStart: number
  /** The header lost its numbers: `@@`, `@@ @@` or `@@ ... @@`. */
  bare: string | null
}

export interface FileDiff {
  path: string
  /** `diff --git …` and `index …` as git wrote them. */
  gitHeader: string[]
  /** The header names the reply writes, `a/`/`b/` prefixes apart. */
  name: string
  prefixed: boolean
  gitHeaderKept: boolean
  hunks: DiffHunk[]
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/

/** Parses `git diff` output of modified text files (no renames, modes or binaries). */
export function parseGitDiff(text: string): FileDiff[] {
  const files: FileDiff[] = []
  let file: FileDiff | undefined
  let hunk: DiffHunk | undefined
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      const path = /^diff --git a\/(.*) b\/\1$/.exec(line)?.[1]
      if (path === undefined) throw new Error(`unreadable diff header: ${line}`)
      file = { path, gitHeader: [line], name: path, prefixed: true, gitHeaderKept: true, hunks: [] }
      files.push(file)
      hunk = undefined
      continue
    }
    if (!file) throw new Error(`diff text before any header: ${line}`)
    const numbers = HUNK_HEADER.exec(line)
    if (numbers) {
      hunk = {
        oldStart: Number(numbers[1]),
        oldCount: numbers[2] === undefined ? 1 : Number(numbers[2]),
        newStart: Number(numbers[3]),
        newCount: numbers[4] === undefined ? 1 : Number(numbers[4]),
        section: numbers[5] ?? '',
        header: line,
        lines: [],
        trueOldStart: Number(numbers[1]),
        bare: null
      }
      file.hunks.push(hunk)
      continue
    }
    if (!hunk) {
      if (line.startsWith('index ')) file.gitHeader.push(line)
      else if (!line.startsWith('--- ') && !line.startsWith('+++ '))
        throw new Error(`unsupported diff header line: ${line}`)
      continue
    }
    const kind = line[0]
    if (kind !== ' ' && kind !== '-' && kind !== '+' && kind !== '\\')
      throw new Error(`unreadable hunk line: ${line}`)
    hunk.lines.push({ kind, text: kind === '\\' ? line : line.slice(1) })
  }
  return files
}

/** The diff as the damaged reply writes it, with `\n` line ends. */
export function renderDiff(files: readonly FileDiff[]): string {
  const out: string[] = []
  for (const file of files) {
    const exact = file.gitHeaderKept && file.prefixed && file.name === file.path
    if (exact) out.push(...file.gitHeader)
    out.push(`--- ${file.prefixed ? 'a/' : ''}${file.name}`)
    out.push(`+++ ${file.prefixed ? 'b/' : ''}${file.name}`)
    for (const hunk of file.hunks) {
      out.push(
        hunk.bare ??
          hunk.header ??
          `@@ -${hunk.oldStart},${hunk.oldCount} +${hunk.newStart},${hunk.newCount} @@${hunk.section}`
      )
      for (const line of hunk.lines) {
        if (line.kind === '\\') out.push(line.text)
        else if (line.noSpace && line.kind === ' ' && line.text === '') out.push('')
        else out.push(`${line.kind}${line.text}`)
      }
    }
  }
  return `${out.join('\n')}\n`
}

/** The lines a hunk expects in the file before, in order (context and removed lines). */
export function oldSide(hunk: DiffHunk): DiffLine[] {
  return hunk.lines.filter((line) => line.kind === ' ' || line.kind === '-')
}
