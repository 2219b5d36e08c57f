import { clip } from '../../patch-error.js'
import type { FilePatch, HeaderAsk, HeaderNames } from '../../types.js'

/** The rules of a diff's header lines (parse.ts has the grammar): what each may ask, what it names. */

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

/** One file's part of the diff as it is read, with what its headers named. */
export interface Section extends FilePatch {
  gitNames?: { old: string; new: string }
  /** 0-based line of the diff where the section starts. */
  at: number
  names: HeaderNames
}

/** Records what a header asks: not thrown, since the policy sees it first (SECURITY_VIOLATION). */
export type Ask = (
  rule: HeaderAsk['rule'],
  kind: HeaderAsk['kind'],
  line: number,
  message: string
) => void

/** A refused header (a mode change, copy, rename, binary): asked; true when the line is one. */
export function askRefused(line: string, at: number, ask: Ask): boolean {
  const refused = REFUSED_HEADERS.find(([pattern]) => pattern.test(line))
  if (!refused) return false
  ask(
    refused[1],
    'unsupported-header',
    at,
    `The diff asks for "${clip(line)}" (line ${at}): only text changes are accepted, with no mode changes, copies, renames or binary patches.`
  )
  return true
}

/**
 * `new file mode <mode>` / `deleted file mode <mode>`: which it says, if either; a malformed one
 * or a mode other than a regular file's is an ask (a deleted executable may go).
 */
export function fileMode(line: string, at: number, ask: Ask): 'new' | 'deleted' | undefined {
  if (/^(new|deleted) file mode/.test(line) && !FILE_MODE.test(line)) {
    ask(
      'patch-parse',
      'unsupported-mode',
      at,
      `Line ${at} ("${clip(line)}") is not a valid file mode line.`
    )
  }
  const mode = FILE_MODE.exec(line)
  if (mode && mode[2] !== '100644' && !(mode[1] === 'deleted' && mode[2] === '100755')) {
    ask(
      'patch-mode',
      'unsupported-mode',
      at,
      `The diff asks for file mode ${mode[2]} (line ${at}): only regular files (100644) may be created or edited.`
    )
  }
  return mode?.[1] as 'new' | 'deleted' | undefined
}

/**
 * A header name as written: timestamps and trailing blanks dropped, prefix kept; null for
 * /dev/null. A quoted (C-escaped) name is an ask: git would unescape it into another path.
 */
export function headerName(raw: string, line: number, ask: Ask): string | null {
  // GNU diff's timestamps follow a tab, or spaces when a model retyped them.
  const name = raw
    .split('\t')[0]!
    .replace(/\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d.*$/, '')
    .trim()
  if (name.startsWith('"')) quoted(name, line, ask)
  return name === '/dev/null' ? null : name
}

export const hasPrefix = (name: string | null, prefix: string) =>
  name === null || name.startsWith(prefix)
export const stripPrefix = (name: string | null, prefix: string) =>
  name !== null && name.startsWith(prefix) ? name.slice(prefix.length) : name

/**
 * The two names of `diff --git a/<path> b/<path>`. They must be the same (no renames), so the
 * line splits in the middle, which also reads names holding spaces; anything else is an ask.
 */
export function gitNames(
  line: string,
  at: number,
  ask: Ask
): { old: string; new: string } | undefined {
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
export function checkIndex(line: string, at: number, ask: Ask): void {
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
export function checkNames(section: Section, line: number, ask: Ask): void {
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
