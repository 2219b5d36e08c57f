import { patchError } from '../../patch-error.js'
import type { FilePatch, HeaderLog } from '../../types.js'
import type { Section } from './parse-headers.js'
import { SectionReader } from './parse-sections.js'

/*
 * The unified diffs read here, git-style or plain, one file or many, as models write them:
 *
 *   diff         := line* , read line by line; a line no rule below takes (prose) is skipped
 *   section      := git-header | file-header          (each starts the next file's section)
 *   git-header   := "diff --git a/" path " b/" path    (one path twice: no renames)
 *                   ( "new file mode " mode | "deleted file mode " mode
 *                   | "index " hash ".." hash [" " mode] )*
 *   file-header  := "--- " name NL "+++ " name         (after a git-header: the same section)
 *   name         := path [TAB or spaces, timestamp] | "/dev/null" ; "a/" and "b/" are noted
 *   hunk         := hunk-header hunk-line*
 *   hunk-header  := "@@ -" start ["," count] " +" start ["," count] " @@" [text] | "@@" [text]
 *   hunk-line    := " " text | "-" text | "+" text | "" | "\" text ("\ No newline at end of file")
 *
 * Quirks of models, tolerated:
 *   - CRLF line ends; blank lines after the last hunk.
 *   - a hunk header glued onto a file header ("+++ b/x.c @@ -1,3 +1,4 @@"): put on its own line.
 *   - counts in hunk headers are ignored: a hunk runs until a line that cannot belong to it; its
 *     start is only a hint for placing it, and a bare "@@" is accepted.
 *   - an empty line inside a hunk is a blank context line; those at a hunk's end are spacing.
 *   - "--- " "+++ " "@@" in a hunk starts the next file, not a removed and an added line.
 *   - a hunk with no git-header or file-header: a section without names (the planned file).
 *   - "--- before.c" / "+++ patched_before.c": the names may disagree (namesDisagree).
 *   - a "new file mode" section with no hunk: an empty new file.
 *   - a reply cut off in a hunk header, or as it wrote the next file's headers: that part goes,
 *     and the hunk before it was written to its end (cutOff: after-hunk).
 *
 * Asked (written to the header log, for the policy; thrown without one): mode lines other than a
 * regular file's, "old mode", "new mode", copies, renames, similarity, binary patches, quoted
 * names, a "diff --git" line naming two paths, names that disagree with it, a malformed index.
 * Refused: a line with no prefix among a hunk's lines (contaminated-diff), a diff with no hunk.
 */

interface ParseOptions {
  cutOff?: boolean
  headers?: HeaderLog
  blockStarts?: readonly number[]
}

/** Parses a unified diff by the grammar above. */
export function parseUnifiedDiff(diff: string, options: ParseOptions = {}): FilePatch[] {
  const headers: HeaderLog = options.headers ?? { sections: [], asks: [] }
  const { lines, blockStarts, cutOff } = prepared(diff, options)
  const sections = new SectionReader(lines, headers).read()
  for (const section of sections) emptyNewFile(section)
  // Without a log to read them from, what the headers ask refuses the diff here.
  const asked = headers.asks[0]
  if (!options.headers && asked)
    throw patchError(asked.message, { kind: asked.kind, line: asked.line })
  const patches = sections.filter(
    (patch) => patch.hunks.length > 0 || patch.headed || patch.created
  )
  markCutOff(patches, dropUnbegun(patches, cutOff))
  if (patches.length === 0 || patches.some((patch) => patch.hunks.length === 0 && !patch.created)) {
    throw patchError(
      'The diff has no hunks: send at least one "@@ -<line>,<count> +<line>,<count> @@" hunk with the lines to change.',
      { kind: 'no-hunks' }
    )
  }
  return patches.map((section) => filePatch(section, blockStarts))
}

const GLUED = /^((?:---|\+\+\+) .*?)\s*(@@ -\d.*)$/

/** The lines to read: CRLF, glued headers and trailing blanks undone, a cut hunk header gone. */
function prepared(
  diff: string,
  options: ParseOptions
): { lines: string[]; blockStarts?: number[]; cutOff: FilePatch['cutOff'] } {
  const raw = diff.replace(/\r\n/g, '\n').split('\n')
  const lines = unglued(raw)
  // Where the reply's blocks start, counted in the lines as unglued.
  const blockStarts = options.blockStarts?.map(
    (start) => start + raw.slice(0, start).filter((line) => GLUED.test(line)).length
  )
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop()
  // A reply cut off in the middle of a hunk header ("@@ -13"): the header goes, and the hunk
  // before it was written to its end.
  let cutOff: FilePatch['cutOff'] = options.cutOff ? 'in-hunk' : undefined
  if (lines.length > 0 && /^@@(?!.*@@)/.test(lines[lines.length - 1]!)) {
    lines.pop()
    cutOff = 'after-hunk'
  }
  return { lines, blockStarts, cutOff }
}

/**
 * A hunk header glued onto a file header (`+++ b/x.c @@ -1,3 +1,4 @@`, or the same on the `---`
 * line) is put on a line of its own, after the `+++` line.
 */
function unglued(lines: readonly string[]): string[] {
  const out: string[] = []
  let held: string | undefined
  for (const line of lines) {
    const glued = GLUED.exec(line)
    if (glued) {
      out.push(glued[1]!)
      if (line.startsWith('---')) held = glued[2]!
      else out.push(glued[2]!)
      continue
    }
    out.push(line)
    if (held !== undefined && line.startsWith('+++ ')) out.push(held)
    if (!line.startsWith('--- ')) held = undefined
  }
  return out
}

/** A git section that only says "new file mode" creates an empty file. */
function emptyNewFile(section: Section): void {
  if (section.created && !section.headed && section.gitNames) {
    section.newPath = section.gitNames.new
    section.prefixed = true
  }
}

/**
 * A reply cut off as it wrote the next file's headers: that file was never begun (it goes), and
 * the hunk before them was written to its end.
 */
function dropUnbegun(patches: Section[], cutOff: FilePatch['cutOff']): FilePatch['cutOff'] {
  const unbegun = patches[patches.length - 1]
  if (
    cutOff === 'in-hunk' &&
    patches.length > 1 &&
    unbegun?.hunks.length === 0 &&
    !unbegun.created
  ) {
    patches.pop()
    return 'after-hunk'
  }
  return cutOff
}

/**
 * What follows the last hunk line is only what the cut left: the last file ends in a hunk. A
 * reply that ends in a hunk with no change in it stopped before the change was written.
 */
function markCutOff(patches: readonly Section[], cutOff: FilePatch['cutOff']): void {
  const last = patches[patches.length - 1]
  const lastHunk = last?.hunks[last.hunks.length - 1]
  if (!cutOff && lastHunk && lastHunk.lines.every((line) => line.kind === ' ')) cutOff = 'in-hunk'
  if (last && lastHunk) last.cutOff = cutOff ?? 'maybe'
}

/** The section as the caller sees it: no reading state, the block it stands in. */
function filePatch(section: Section, blockStarts: readonly number[] | undefined): FilePatch {
  const { at, oldPath, newPath, prefixed, headed, created, hunks } = section
  const { cutOff: cut, namesDisagree: disagree } = section
  const blockOf = (line: number) => (blockStarts ?? []).filter((start) => start <= line).length - 1
  return {
    oldPath,
    newPath,
    prefixed,
    headed,
    created,
    ...(disagree ? { namesDisagree: true } : {}),
    ...(cut ? { cutOff: cut } : {}),
    ...(blockStarts ? { block: Math.max(0, blockOf(at)) } : {}),
    hunks: hunks.map(({ oldStart, oldCount, lines: body }) => ({
      oldStart,
      oldCount,
      lines: body
    }))
  }
}
