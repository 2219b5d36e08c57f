import { InvalidDiffError } from '../contract/index.js'
import type { DiffLine, FilePatch, Hunk } from './types.js'

// Headers asking for things no text edit may do: modes, symlinks, copies, renames, binaries.
const REFUSED_HEADER =
  /^(old mode |new mode |copy from |copy to |rename from |rename to |similarity index |dissimilarity index |GIT binary patch|Binary files )/

/**
 * Parses a unified diff (git-style or plain, one or many files). Line counts in hunk headers
 * are ignored: a hunk runs until a line that cannot belong to it. Line numbers are kept only
 * as a hint for placing the hunk.
 */
export function parseUnifiedDiff(diff: string): FilePatch[] {
  const lines = diff.split('\n')
  const files: FilePatch[] = []
  let file: FilePatch | undefined
  let hunk: Hunk | undefined
  const startFile = (): FilePatch => {
    file = { oldPath: null, newPath: null, hunks: [] }
    files.push(file)
    hunk = undefined
    return file
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (hunk && /^[ +-]/.test(line) && !isFileHeader(lines, i)) {
      hunk.lines.push({ kind: line[0] as DiffLine['kind'], text: line.slice(1), noEol: false })
      continue
    }
    if (hunk && line === '' && i < lines.length - 1) {
      hunk.lines.push({ kind: ' ', text: '', noEol: false })
      continue
    }
    if (hunk && line.startsWith('\\')) {
      const previous = hunk.lines[hunk.lines.length - 1]
      if (previous) previous.noEol = true
      continue
    }
    hunk = undefined
    if (REFUSED_HEADER.test(line)) {
      throw new InvalidDiffError(
        `The diff asks for "${line.slice(0, 60)}": only text changes are accepted (no mode changes, copies, renames or binary patches).`,
        { rule: 'unsupported-header', line: i + 1 }
      )
    }
    const mode = /^(new|deleted) file mode (\d+)/.exec(line)
    if (mode && mode[2] !== '100644' && mode[2] !== '100755') {
      throw new InvalidDiffError(
        `The diff asks for file mode ${mode[2]}: only regular files may be edited.`,
        {
          rule: 'unsupported-mode',
          line: i + 1
        }
      )
    }
    if (line.startsWith('diff --git ')) {
      startFile()
    } else if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const target =
        file && file.hunks.length === 0 && file.oldPath === null && file.newPath === null
          ? file
          : startFile()
      target.oldPath = headerPath(line.slice(4), 'a/')
      target.newPath = headerPath(lines[i + 1]!.slice(4), 'b/')
      i++
    } else if (line.startsWith('@@')) {
      const target = file ?? startFile()
      hunk = { oldStart: Number(/^@@ -(\d+)/.exec(line)?.[1] ?? 0), lines: [] }
      target.hunks.push(hunk)
    }
  }
  const patches = files.filter((patch) => patch.hunks.length > 0 || patch.oldPath !== patch.newPath)
  if (patches.length === 0) {
    throw new InvalidDiffError(
      'The diff has no hunks: send at least one "@@" hunk with the lines to change.',
      {
        rule: 'no-hunks'
      }
    )
  }
  for (const patch of patches) {
    for (const h of patch.hunks) {
      while (
        h.lines.length > 0 &&
        h.lines[h.lines.length - 1]!.kind === ' ' &&
        h.lines[h.lines.length - 1]!.text === ''
      )
        h.lines.pop()
      if (!h.lines.some((l) => l.kind !== ' ')) {
        throw new InvalidDiffError('A hunk changes nothing: every hunk needs "+" or "-" lines.', {
          rule: 'empty-hunk'
        })
      }
    }
  }
  return patches
}

/** `--- path`, `+++ path`, `@@`: the next file of a plain diff, not a removed and an added line. */
function isFileHeader(lines: readonly string[], i: number): boolean {
  return (
    lines[i]!.startsWith('--- ') &&
    lines[i + 1]?.startsWith('+++ ') === true &&
    lines[i + 2]?.startsWith('@@') === true
  )
}

function headerPath(raw: string, prefix: string): string | null {
  const name = raw.split('\t')[0]!.trim()
  if (name === '/dev/null') return null
  return name.startsWith(prefix) ? name.slice(prefix.length) : name
}
