import { clip, patchError } from '../../patch-error.js'
import type { DiffLine, FilePatch, HeaderAsk, HeaderLog, HeaderNames, Hunk } from '../../types.js'

// Headers asking for things no text edit may do: modes, symlinks, copies, renames, binaries.
const REFUSED_HEADERS: ReadonlyArray<[RegExp, HeaderAsk['rule']]> = [
  [/^(old mode|new mode)( |$)/, 'patch-mode'],
  [/^((copy|rename) (from|to) \S|(similarity|dissimilarity) index \d)/, 'patch-copy-rename'],
  [/^(GIT binary patch\s*$|Binary files .* differ\s*$)/, 'patch-binary']
]
/** Whether a line is a header that asks what no text edit may do (a mode, a copy, a binary). */
export const isAskingHeader = (line: string): boolean =>
  REFUSED_HEADERS.some(([pattern]) => pattern.test(line))
const FILE_MODE = /^(new|deleted) file mode (\d+)\s*$/
const INDEX = /^index [0-9a-f]+\.\.[0-9a-f]+( (\d+))?\s*$/i
const GLUED = /^((?:---|\+\+\+) .*?)\s*(@@ -\d.*)$/
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/

interface Section extends FilePatch {
  gitNames?: { old: string; new: string }
  /** 0-based line of the diff where the section starts. */
  at: number
  names: HeaderNames
}

/**
 * Parses a unified diff (git-style or plain, one or many files). Line counts in hunk headers are
 * ignored: a hunk runs until a line that cannot belong to it. Line numbers are kept only as a
 * hint for placing the hunk, and a header without them (`@@`, `@@ ... @@`) is accepted.
 */
export function parseUnifiedDiff(
  diff: string,
  options: { cutOff?: boolean; headers?: HeaderLog; blockStarts?: readonly number[] } = {}
): FilePatch[] {
  const headers: HeaderLog = options.headers ?? { sections: [], asks: [] }
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
  const sections: Section[] = []
  let section: Section | undefined
  let hunk: (Hunk & { looseBlanks: number }) | undefined
  const startSection = (at: number): Section => {
    section = {
      at,
      oldPath: null,
      newPath: null,
      prefixed: false,
      headed: false,
      created: false,
      hunks: [],
      names: {}
    }
    sections.push(section)
    headers.sections.push(section.names)
    return section
  }
  // What a header asks is recorded, not thrown: the policy sees it first (SECURITY_VIOLATION).
  const ask = (rule: HeaderAsk['rule'], kind: HeaderAsk['kind'], line: number, message: string) =>
    headers.asks.push({ rule, kind, line, message })
  const endHunk = () => {
    // Blank lines with no leading space at the end of a hunk are the reply's own spacing.
    if (hunk) hunk.lines.splice(hunk.lines.length - hunk.looseBlanks, hunk.looseBlanks)
    hunk = undefined
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (hunk) {
      if (/^[ +-]/.test(line) && !isFileHeader(lines, i)) {
        hunk.lines.push({ kind: line[0] as DiffLine['kind'], text: line.slice(1), noEol: false })
        hunk.looseBlanks = 0
        continue
      }
      if (line === '') {
        hunk.lines.push({ kind: ' ', text: '', noEol: false })
        hunk.looseBlanks++
        continue
      }
      if (line.startsWith('\\')) {
        const previous = hunk.lines[hunk.lines.length - 1]
        if (previous) previous.noEol = true
        continue
      }
      if (strayInHunk(lines, i)) {
        throw patchError(
          `Line ${i + 1} of the diff ("${clip(line)}") stands among the lines of hunk ${sections.reduce((n, p) => n + p.hunks.length, 0)} without a " ", "+" or "-" in front, so the lines after it cannot be read. Start every context line with a space.`,
          { kind: 'contaminated-diff', line: i + 1 }
        )
      }
      endHunk()
    }
    const at = i + 1
    const refused = REFUSED_HEADERS.find(([pattern]) => pattern.test(line))
    if (refused) {
      ask(
        refused[1],
        'unsupported-header',
        at,
        `The diff asks for "${clip(line)}" (line ${at}): only text changes are accepted, with no mode changes, copies, renames or binary patches.`
      )
      continue
    }
    if (/^(new|deleted) file mode/.test(line) && !FILE_MODE.test(line)) {
      ask(
        'patch-parse',
        'unsupported-mode',
        at,
        `Line ${at} ("${clip(line)}") is not a valid file mode line.`
      )
    }
    const mode = FILE_MODE.exec(line)
    if (mode?.[1] === 'new' && section) section.created = true
    if (mode && mode[2] !== '100644' && !(mode[1] === 'deleted' && mode[2] === '100755')) {
      ask(
        'patch-mode',
        'unsupported-mode',
        at,
        `The diff asks for file mode ${mode[2]} (line ${at}): only regular files (100644) may be created or edited.`
      )
    }
    if (line.startsWith('index ')) checkIndex(line, at, ask)
    if (line.startsWith('diff ')) {
      const target = startSection(i)
      const names = gitNames(line, at, ask)
      if (names) target.gitNames = names
      target.names.git = names && { old: `a/${names.old}`, new: `b/${names.new}` }
    } else if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const target =
        section && section.hunks.length === 0 && !section.headed ? section : startSection(i)
      const oldName = headerName(lines[i]!.slice(4), at, ask)
      const newName = headerName(lines[i + 1]!.slice(4), at + 1, ask)
      target.headed = true
      target.names.old = oldName
      target.names.new = newName
      target.oldPath = stripPrefix(oldName, 'a/')
      target.newPath = stripPrefix(newName, 'b/')
      target.prefixed = hasPrefix(oldName, 'a/') && hasPrefix(newName, 'b/')
      checkNames(target, at, ask)
      i++
    } else if (line.startsWith('@@')) {
      const target = section ?? startSection(i)
      const numbers = HUNK_HEADER.exec(line)
      hunk = {
        oldStart: numbers ? Number(numbers[1]) : null,
        oldCount: numbers ? Number(numbers[2] ?? 1) : null,
        lines: [],
        looseBlanks: 0
      }
      target.hunks.push(hunk)
    }
  }
  endHunk()
  // A git section that only says "new file mode" creates an empty file.
  for (const patch of sections) {
    if (patch.created && !patch.headed && patch.gitNames) {
      patch.newPath = patch.gitNames.new
      patch.prefixed = true
    }
  }
  // Without a log to read them from, what the headers ask refuses the diff here.
  const asked = headers.asks[0]
  if (!options.headers && asked)
    throw patchError(asked.message, { kind: asked.kind, line: asked.line })
  const patches = sections.filter(
    (patch) => patch.hunks.length > 0 || patch.headed || patch.created
  )
  // A reply cut off as it wrote the next file's headers: that file was never begun, and the
  // hunk before them was written to its end.
  const unbegun = patches[patches.length - 1]
  if (
    cutOff === 'in-hunk' &&
    patches.length > 1 &&
    unbegun?.hunks.length === 0 &&
    !unbegun.created
  ) {
    patches.pop()
    cutOff = 'after-hunk'
  }
  // What follows the last hunk line is only what the cut left: the last file ends in a hunk.
  const last = patches[patches.length - 1]
  const lastHunk = last?.hunks[last.hunks.length - 1]
  // A reply that ends in a hunk with no change in it stopped before the change was written.
  if (!cutOff && lastHunk && lastHunk.lines.every((line) => line.kind === ' ')) cutOff = 'in-hunk'
  if (last && lastHunk) last.cutOff = cutOff ?? 'maybe'
  if (patches.length === 0 || patches.some((patch) => patch.hunks.length === 0 && !patch.created)) {
    throw patchError(
      'The diff has no hunks: send at least one "@@ -<line>,<count> +<line>,<count> @@" hunk with the lines to change.',
      { kind: 'no-hunks' }
    )
  }
  const blockOf = (at: number) => (blockStarts ?? []).filter((start) => start <= at).length - 1
  return patches.map(
    ({
      at,
      oldPath,
      newPath,
      prefixed,
      headed,
      created,
      hunks,
      cutOff: cut,
      namesDisagree: disagree
    }) => ({
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
    })
  )
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

type Ask = (rule: HeaderAsk['rule'], kind: HeaderAsk['kind'], line: number, message: string) => void

/**
 * A header name as written: timestamps and trailing blanks dropped, prefix kept; null for
 * /dev/null. A quoted (C-escaped) name is an ask: git would unescape it into another path.
 */
function headerName(raw: string, line: number, ask: Ask): string | null {
  // GNU diff's timestamps follow a tab, or spaces when a model retyped them.
  const name = raw
    .split('\t')[0]!
    .replace(/\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d.*$/, '')
    .trim()
  if (name.startsWith('"')) quoted(name, line, ask)
  return name === '/dev/null' ? null : name
}

const hasPrefix = (name: string | null, prefix: string) => name === null || name.startsWith(prefix)
const stripPrefix = (name: string | null, prefix: string) =>
  name !== null && name.startsWith(prefix) ? name.slice(prefix.length) : name

/**
 * The two names of `diff --git a/<path> b/<path>`. They must be the same (no renames), so the
 * line splits in the middle, which also reads names holding spaces; anything else is an ask.
 */
function gitNames(line: string, at: number, ask: Ask): { old: string; new: string } | undefined {
  const rest = line.slice('diff --git '.length).trimEnd()
  if (line.startsWith('diff --git ') && rest.includes('"')) {
    quoted(rest, at, ask)
    return undefined
  }
  const half = (rest.length - 5) / 2
  const old = rest.slice(0, half + 2)
  const name = rest.slice(half + 3)
  if (
    line.startsWith('diff --git ') &&
    Number.isInteger(half) &&
    old.startsWith('a/') &&
    name.startsWith('b/') &&
    old.slice(2) === name.slice(2)
  )
    return { old: old.slice(2), new: name.slice(2) }
  ask(
    'patch-parse',
    'path-mismatch',
    at,
    `Line ${at} ("${clip(line)}") is not a plain "diff --git a/<path> b/<path>" line naming one path twice; renames are not accepted.`
  )
  return undefined
}

/** `index <hash>..<hash> [<mode>]`: a mode other than a regular file's is an ask. */
function checkIndex(line: string, at: number, ask: Ask): void {
  const index = INDEX.exec(line)
  if (!index) {
    ask(
      'patch-parse',
      'unsupported-header',
      at,
      `Line ${at} ("${clip(line)}") is not a valid index line.`
    )
  } else if (index[2] && index[2] !== '100644' && index[2] !== '100755') {
    ask(
      'patch-mode',
      'unsupported-mode',
      at,
      `The diff names file mode ${index[2]} (line ${at}): only regular files (100644) may be created or edited.`
    )
  }
}

/**
 * The names of one section must agree with its `diff --git` line (git would follow `---`/`+++`
 * over it: a hostile shape, an ask). `---` and `+++` alone may disagree: models write
 * `--- before.c` / `+++ patched_before.c`, which in a call for one file says nothing, since the
 * reply lands on the planned file; a reply for several files is refused (edit-reply.ts), and the
 * policy refuses it outside a one-file call.
 */
function checkNames(section: Section, line: number, ask: Ask): void {
  const { oldPath, newPath, gitNames: git } = section
  if (
    git !== undefined &&
    ((oldPath !== null && oldPath !== git.old) || (newPath !== null && newPath !== git.new))
  ) {
    ask(
      'patch-parse',
      'path-mismatch',
      line,
      `The file names in the diff headers disagree (line ${line}: ${[git.old, oldPath, newPath].filter(Boolean).join(' / ')}). ` +
        'Name the one file you change the same way in "diff --git", "---" and "+++"; renames are not accepted.'
    )
  }
  if (oldPath !== null && newPath !== null && oldPath !== newPath) section.namesDisagree = true
}

function quoted(name: string, line: number, ask: Ask): void {
  ask(
    'patch-parse',
    'quoted-path',
    line,
    `The diff names a quoted path (${clip(name)}, line ${line}); write plain paths such as "--- a/src/file.ts".`
  )
}
