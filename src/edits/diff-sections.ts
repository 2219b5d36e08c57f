import { InvalidDiffError } from '../contract/index.js'
import { patchError } from './patch-error.js'
import type { FilePatch, Hunk } from './types.js'

// What a reply says before a diff that takes the place of one it gave before: that this one is
// final, corrected, revised or updated, that it replaces the earlier one or that the earlier one
// was wrong, or a sentence that takes back what came before ("Actually, …"). An instruction
// ("then replace the return …") or an alternative ("another way to write it") is not one.
const REPLACES: readonly RegExp[] = [
  /\b(final|corrected|revised|updated|fixed|complete|full) (version|diff|patch|fix|solution|code|one)\b/i,
  /\b(correction|revised)\b/i,
  /^\W*(actually|wait|oops|sorry)\b/i,
  /\b(apolog(y|ies|ise|ize)|my mistake|i made (a|an) (mistake|error))\b/i,
  /\b(replaces?|supersedes?|instead of|ignore) (the|my) (previous|earlier|first|above|original|last)\b/i,
  /\b(previous|earlier|first|above|last) (diff|patch|one|version|fix) (was|is|had|has) (wrong|incorrect|broken|incomplete|buggy|a mistake|an error|missing)\b/i
]

/** Whether the prose before a diff block says that block replaces one the reply gave before. */
export function saysItReplaces(prose: readonly string[]): boolean {
  return prose.some((line) => REPLACES.some((words) => words.test(line)))
}

/**
 * Marks the sections a later block replaces: a block whose prose says it replaces what came
 * before supersedes each earlier block all of whose files it gives again. A block that gives
 * only some of an earlier block's files supersedes nothing (the reply did not say which of the
 * earlier block's diffs still stand).
 */
export function markSuperseded(patches: FilePatch[], replacing: readonly boolean[]): void {
  const named = (patch: FilePatch) => patch.newPath ?? patch.oldPath
  const filesOf = (block: number) =>
    new Set(patches.filter((patch) => patch.block === block).map(named))
  replacing.forEach((replaces, later) => {
    if (!replaces) return
    const given = filesOf(later)
    for (let earlier = 0; earlier < later; earlier++) {
      const files = filesOf(earlier)
      if (files.size === 0 || ![...files].every((file) => given.has(file))) continue
      for (const patch of patches) if (patch.block === earlier) patch.superseded = true
    }
  })
}

const sameHunk = (a: Hunk, b: Hunk) =>
  a.lines.length === b.lines.length &&
  a.lines.every((line, k) => line.kind === b.lines[k]!.kind && line.text === b.lines[k]!.text)

/**
 * The diff sections of one file that are to be applied: a hunk the reply repeats (the same diff
 * given twice) counts once.
 */
export function sectionsToApply(sections: readonly FilePatch[]): FilePatch[] {
  const seen: Hunk[] = []
  return sections
    .map((section) => {
      const hunks = section.hunks.filter((hunk) => !seen.some((other) => sameHunk(hunk, other)))
      seen.push(...hunks)
      return { ...section, hunks }
    })
    .filter((section, i) => section.hunks.length > 0 || sections[i]!.hunks.length === 0)
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
