import { SecurityViolationError } from '../contract/index.js'
import { printable, violationError, type PathPolicy } from './path-policy.js'

/** The paths one file section of a diff names, as written (prefixes kept, /dev/null as null). */
export interface DiffSection {
  /** The two names of `diff --git a/<x> b/<y>`, when the section has that line. */
  git?: { old: string; new: string }
  old?: string | null
  new?: string | null
}

export interface GrammarOptions {
  /**
   * The reply is for one planned file and lands on it whatever its headers say, so `---`/`+++`
   * names that disagree with each other (`before.c` / `patched_before.c`) are only checked
   * against the policy, each of them, not refused as a rename. Names that disagree with a
   * `diff --git` line (T07) are refused all the same.
   */
  oneFile?: boolean
}

type Refusal = 'patch-parse' | 'patch-mode' | 'patch-binary' | 'patch-copy-rename'

const COPY_RENAME =
  /^(copy from|copy to|rename from|rename to|similarity index|dissimilarity index)( |$)/
const MODE_CHANGE = /^(old mode|new mode)( |$)/
const BINARY = /^(GIT binary patch|Binary files |literal \d|delta \d)/
const FILE_MODE = /^(new|deleted) file mode (\d+)\s*$/
const INDEX = /^index [0-9a-f]+\.\.[0-9a-f]+( (\d+))?\s*$/
// Lines that may stand between files: git's own headers allowed above, and prose or svn noise.
const HUNK_LINE = /^[ +\-\\]/

function refuse(rule: Refusal, message: string, line: number): never {
  throw new SecurityViolationError(`${message} [rule ${rule}]`, { rule, line, stage: 'diff' })
}

/**
 * The strict subset of the git diff format a reply may use: `diff --git a/<p> b/<p>`, `index`,
 * `new file mode 100644`, `deleted file mode 100644|100755`, `---`/`+++` names, `@@` hunks and
 * `\ No newline`. Mode changes, symlinks, gitlinks, binary patches, copies, renames and quoted
 * (C-escaped) names are refused, as are headers whose names disagree: git reads every one of
 * these in ways a reviewer of the text does not expect. Returns the sections with their names.
 */
export function assertDiffGrammar(text: string, options: GrammarOptions = {}): DiffSection[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  // The most telling refusal first: a copy with mismatched names is a copy, not a typo.
  lines.forEach((line, i) => refuseKind(line, i + 1))
  const sections: DiffSection[] = []
  let section: DiffSection | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const at = i + 1
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      if (!section || section.old !== undefined) {
        section = {}
        sections.push(section)
      }
      section.old = headerName(line.slice(4), at)
      section.new = headerName(lines[i + 1]!.slice(4), at + 1)
      if (!options.oneFile || section.git) agree(section, at)
      i++
      continue
    }
    if (HUNK_LINE.test(line) || line.startsWith('@@') || line.trim() === '') continue
    if (line.startsWith('diff ')) {
      section = { git: gitNames(line, at) }
      sections.push(section)
      continue
    }
    const mode = FILE_MODE.exec(line)
    if (mode) {
      const allowed = mode[1] === 'new' ? ['100644'] : ['100644', '100755']
      if (!allowed.includes(mode[2]!))
        refuse(
          'patch-mode',
          `Line ${at} asks for file mode ${mode[2]}: ${modeName(mode[2]!)} are refused.`,
          at
        )
      continue
    }
    if (line.startsWith('index ')) {
      const index = INDEX.exec(line)
      if (!index) refuse('patch-parse', `Line ${at} is not a valid index line.`, at)
      if (index[2] && index[2] !== '100644' && index[2] !== '100755')
        refuse(
          'patch-mode',
          `Line ${at} names file mode ${index[2]}: ${modeName(index[2])} are refused.`,
          at
        )
      continue
    }
    if (/^(\+\+\+|---) /.test(line) || /^(new|deleted) file mode/.test(line))
      refuse('patch-parse', `Line ${at} ("${clip(line)}") is a file header out of place.`, at)
  }
  return sections
}

/**
 * Every name a diff gives, read both ways git may read it: without its `a/`/`b/` prefix, and
 * for a name without one, also with its first segment stripped (`-p1`): `zz/.env` is `.env`.
 */
export function diffPaths(sections: readonly DiffSection[]): string[] {
  const paths = new Set<string>()
  for (const section of sections) {
    if (section.git) {
      paths.add(section.git.old.slice(2))
      paths.add(section.git.new.slice(2))
    }
    for (const [name, prefix] of [
      [section.old, 'a/'],
      [section.new, 'b/']
    ] as const) {
      if (name === null || name === undefined) continue
      if (name.startsWith(prefix)) {
        paths.add(name.slice(2))
        continue
      }
      paths.add(name)
      const stripped = name.split('/').slice(1).join('/')
      if (stripped) paths.add(stripped)
    }
  }
  return [...paths]
}

/**
 * The whole check of a diff reply: its grammar, then every name it gives (both readings)
 * through the path policy. Names that pass the policy but differ from the planned path are left
 * to the applier, which lands the edit on the planned path.
 */
export function guardDiffText(
  text: string,
  policy: PathPolicy,
  options: GrammarOptions = {}
): DiffSection[] {
  const sections = assertDiffGrammar(text, options)
  for (const path of diffPaths(sections)) {
    const violation = policy.check(path)
    if (violation) throw violationError(violation, 'diff header')
  }
  return sections
}

function refuseKind(line: string, at: number): void {
  if (COPY_RENAME.test(line))
    refuse(
      'patch-copy-rename',
      `Line ${at} asks for "${clip(line)}": copies and renames are refused.`,
      at
    )
  if (MODE_CHANGE.test(line))
    refuse('patch-mode', `Line ${at} asks for "${clip(line)}": mode changes are refused.`, at)
  if (BINARY.test(line))
    refuse('patch-binary', `Line ${at} holds a binary patch: only text changes are accepted.`, at)
}

function headerName(raw: string, at: number): string | null {
  // A timestamp after the name, or a hunk header glued onto the line, is not part of it.
  const name = raw
    .split('\t')[0]!
    .replace(/\s*@@ -\d.*$/, '')
    .replace(/\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d.*$/, '')
    .replace(/\s+$/, '')
  if (name.startsWith('"'))
    refuse('patch-parse', `Line ${at} gives a quoted (C-escaped) file name, which is refused.`, at)
  if (name === '/dev/null') return null
  return name
}

function gitNames(line: string, at: number): { old: string; new: string } {
  const rest = line.slice('diff --git '.length)
  if (!line.startsWith('diff --git ') || rest.includes('"'))
    refuse(
      'patch-parse',
      `Line ${at} ("${clip(line)}") is not a plain "diff --git a/<path> b/<path>" line.`,
      at
    )
  // The two names are equal (no renames), so the line splits in the middle.
  const length = (rest.length - 5) / 2
  const old = rest.slice(0, length + 2)
  const name = rest.slice(length + 3)
  if (
    !Number.isInteger(length) ||
    !old.startsWith('a/') ||
    !name.startsWith('b/') ||
    old.slice(2) !== name.slice(2)
  )
    refuse(
      'patch-parse',
      `Line ${at}: "diff --git" must name the same path as a/<path> and b/<path>.`,
      at
    )
  return { old, new: name }
}

function agree(section: DiffSection, at: number): void {
  const strip = (name: string | null | undefined, prefix: string) =>
    name && name.startsWith(prefix) ? name.slice(2) : name
  if (section.git) {
    const path = section.git.old.slice(2)
    const ok = (name: string | null | undefined, expected: string) =>
      name === null || name === expected
    if (!ok(section.old, `a/${path}`) || !ok(section.new, `b/${path}`))
      refuse(
        'patch-parse',
        `Lines ${at}-${at + 1}: the ---/+++ names disagree with "diff --git" (${printable(path)}).`,
        at
      )
    return
  }
  const old = strip(section.old, 'a/')
  const name = strip(section.new, 'b/')
  if (old !== null && name !== null && old !== name)
    refuse(
      'patch-parse',
      `Lines ${at}-${at + 1}: the --- and +++ names disagree; renames are refused.`,
      at
    )
}

function modeName(mode: string): string {
  if (mode === '120000') return 'symbolic links'
  if (mode === '160000') return 'gitlinks (submodules)'
  if (mode === '100755') return 'executable files'
  return 'modes other than 100644'
}

function clip(line: string): string {
  return printable(line.length > 60 ? line.slice(0, 60) : line)
}
