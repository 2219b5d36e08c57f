import { InvalidDiffError } from '../contract/index.js'
import { patchError } from './patch-error.js'
import type { FilePatch, Hunk } from './types.js'

// What a reply says when a later diff takes the place of one it gave before.
const REPLACES =
  /\b(correct(ed|ion)|revised|updated (diff|patch|version)|replaces?|instead of the (previous|first|above)|ignore (the|my) (previous|first|earlier|above)|(previous|first|earlier|above) (diff|patch|one|version) (was|is|had)|apolog(y|ies|ize)|my mistake|oops)\b/i

/**
 * Whether the reply says that a diff it gives replaces one it gave before: words to that effect
 * in the prose between its first and its last diff (never in the diff lines themselves).
 */
export function saysItReplaces(reply: string): boolean {
  const lines = reply.replace(/\r\n/g, '\n').split('\n')
  const starts = lines.flatMap((line, i) =>
    line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ') ? [i] : []
  )
  if (starts.length < 2) return false
  return lines
    .slice(starts[0]!, starts[starts.length - 1]!)
    .some((line) => !/^([-+ @\\]|diff |index )/.test(line) && REPLACES.test(line))
}

const sameHunk = (a: Hunk, b: Hunk) =>
  a.lines.length === b.lines.length &&
  a.lines.every((line, k) => line.kind === b.lines[k]!.kind && line.text === b.lines[k]!.text)

/**
 * The diff sections of one file that are to be applied. A hunk the reply repeats (the same diff
 * given twice) counts once. When the reply gives the file in several sections and says a later
 * one replaces what came before, only the last complete section counts.
 */
export function sectionsToApply(sections: readonly FilePatch[], replaces: boolean): FilePatch[] {
  const seen: Hunk[] = []
  const distinct = sections
    .map((section) => {
      const hunks = section.hunks.filter((hunk) => !seen.some((other) => sameHunk(hunk, other)))
      seen.push(...hunks)
      return { ...section, hunks }
    })
    .filter((section, i) => section.hunks.length > 0 || sections[i]!.hunks.length === 0)
  if (!replaces || distinct.length < 2) return distinct
  const complete = distinct.filter((section) => section.cutOff !== 'in-hunk')
  return complete.length > 0 ? [complete[complete.length - 1]!] : distinct
}

/**
 * Two sections of one file whose hunks overlap: the reply revised its diff without saying which
 * stands. Refused, naming both, rather than guessing.
 */
export function revisionRefusal(path: string, sections: number, error: unknown): unknown {
  if (!(error instanceof InvalidDiffError) || error.details.rule !== 'overlapping-hunks')
    return error
  if (sections < 2) return error
  return patchError(
    `The reply gives ${sections} different diffs for ${path} that change the same lines, and does not say which one stands. ` +
      `${error.message} Send one diff for the file, with every change in it.`,
    {
      kind: 'overlapping-hunks',
      file: path,
      ...(error.details.hunk ? { hunk: Number(error.details.hunk) } : {})
    }
  )
}
