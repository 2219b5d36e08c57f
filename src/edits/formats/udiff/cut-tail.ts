import { occurrencesInFile, type FileIndex } from '../../file-index.js'
import { looseKey } from '../../line-match.js'
import { patchError } from '../../patch-error.js'
import type { FilePatch, Hunk } from '../../types.js'

/**
 * The hunks of a reply that was cut off inside its last hunk, with what the cut left unfinished
 * dropped, and only where that is safe by construction:
 *
 * - a last context line that is the start of a line the file really has is dropped (it may be
 *   half-written; the lines before it still have to place the hunk);
 * - a last hunk left with no change (the cut came before its first "+" or "-", or the reply
 *   stopped in the next hunk's header) is dropped when its lines are really together in the file;
 * - a last hunk cut in the middle of its added or removed lines is dropped, and the hunks before
 *   it, which the reply finished (another hunk's header followed each), are what lands;
 * - a cut in the middle of the added or removed lines of the file's only hunk is refused: nobody
 *   knows what the rest of the change was, and a half-written line must never be written.
 */
export function settleCutTail(path: string, patch: FilePatch, file: FileIndex): Hunk[] {
  if (!patch.cutOff || patch.hunks.length === 0) return patch.hunks
  const hunks = [...patch.hunks]
  const number = hunks[hunks.length - 1]!.number ?? hunks.length
  const last = hunks[hunks.length - 1]!
  const lines = [...last.lines]
  const fileLoose = file.loose
  const tail = lines[lines.length - 1]
  if (patch.cutOff === 'in-hunk') {
    if (tail && tail.kind !== ' ' && !hunks.slice(0, -1).some(changes))
      throw cutInChange(path, number)
    if (tail && tail.kind !== ' ') return hunks.slice(0, -1)
    if (tail && isStartOfFileLine(looseKey(tail.text), fileLoose)) lines.pop()
  } else if (patch.cutOff === 'maybe' && tail?.kind === ' ') {
    const loose = looseKey(tail.text)
    if (!file.byLoose.has(loose) && isStartOfFileLine(loose, fileLoose)) lines.pop()
  }
  hunks[hunks.length - 1] = { ...last, lines }
  if (hunks.every((hunk) => !changes(hunk))) {
    throw patchError(
      `The reply for ${path} was cut off before its first change. Send a shorter diff: only the hunks the change needs, with 3 lines of context.`,
      { kind: 'cut-off-reply', file: path, hunk: number }
    )
  }
  return hunks
}

/**
 * The hunks that change something. A hunk of context lines alone says nothing; it is dropped
 * when its lines really are together in the file, and refused when they are not (the reply is
 * then not about this file as it is).
 */
export function changingHunks(path: string, hunks: readonly Hunk[], file: FileIndex): Hunk[] {
  hunks.forEach((hunk, index) => {
    if (
      changes(hunk) ||
      occurrencesInFile(
        hunk.lines.map((line) => looseKey(line.text)),
        file
      ).length > 0
    )
      return
    throw patchError(
      `Hunk ${hunk.number ?? index + 1} for ${path} changes nothing: every hunk needs "+" or "-" lines.`,
      { kind: 'empty-hunk', file: path, hunk: hunk.number ?? index + 1 }
    )
  })
  const changing = hunks.filter(changes)
  if (changing.length === 0 && hunks.length > 0) {
    throw patchError(`The diff for ${path} changes nothing: its hunks hold no "+" or "-" lines.`, {
      kind: 'empty-hunk',
      file: path
    })
  }
  return changing
}

const changes = (hunk: Hunk) => hunk.lines.some((line) => line.kind !== ' ')

function isStartOfFileLine(loose: string, fileLoose: readonly string[]): boolean {
  return loose === '' || fileLoose.some((line) => line.startsWith(loose))
}

function cutInChange(path: string, hunk: number) {
  return patchError(
    `The reply was cut off in the middle of hunk ${hunk} for ${path}, among the lines it adds or removes, so the rest of that change is unknown. ` +
      'Send a shorter diff: only the hunks the change needs, each with 3 lines of context after its last change.',
    { kind: 'cut-off-reply', file: path, hunk }
  )
}
