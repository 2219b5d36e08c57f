import { PATCHSMITH_TRAILER } from '../../change/index.js'

/**
 * A commit message's trailers, read as `git interpret-trailers --parse` reads them, without
 * running git (its `trailer.*.cmd` settings are the repository's to set): the last paragraph,
 * never the subject, when every line of it is a trailer or a continuation, or when at least a
 * quarter are trailers and one is git's own (`Signed-off-by`) or Patchsmith's. Any trailers may
 * follow Patchsmith's (a sign-off, `Co-authored-by`, a hook's `Change-Id`).
 */

/** The trailer key of a round (`Patchsmith-Follow-Up: 2`). */
export const ROUND_TRAILER = 'Patchsmith-Follow-Up'
/** What every commit Patchsmith makes carries (src/git's PATCHSMITH_TRAILER), or a round's. */
export const PATCHSMITH_TRAILERS = [PATCHSMITH_TRAILER.split(':')[0]!, ROUND_TRAILER]

interface Trailer {
  key: string
  value: string
}

const TRAILER = /^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$/
const CONTINUATION = /^[ \t]/
const RECOGNISED = /^(signed-off-by|patchsmith-[a-z0-9-]+)$/i

export function parseTrailers(message: string): Trailer[] {
  const lines = message
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .filter((line) => !line.startsWith('#'))
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop()
  let start = lines.length
  while (start > 0 && lines[start - 1]!.trim() !== '') start--
  // The subject paragraph is the message, never its trailers.
  if (start === 0) return []
  const block = lines.slice(start)
  const trailers: Trailer[] = []
  let others = 0
  for (const line of block) {
    const match = TRAILER.exec(line)
    if (match) trailers.push({ key: match[1]!, value: match[2]!.trim() })
    else if (CONTINUATION.test(line) && trailers.length > 0)
      trailers.at(-1)!.value += ` ${line.trim()}`
    else others++
  }
  if (trailers.length === 0) return []
  if (others === 0) return trailers
  const recognised = trailers.some((trailer) => RECOGNISED.test(trailer.key))
  return recognised && trailers.length * 4 >= trailers.length + others ? trailers : []
}

/** Whether a commit message carries one of Patchsmith's trailers (proof only with its author). */
export function madeByPatchsmith(message: string): boolean {
  const keys = new Set(PATCHSMITH_TRAILERS.map((key) => key.toLowerCase()))
  return parseTrailers(message).some((trailer) => keys.has(trailer.key.toLowerCase()))
}

/** The round a commit message records (its `Patchsmith-Follow-Up: k`), if any. */
export function roundOf(message: string): number | undefined {
  const trailer = parseTrailers(message).find(
    (found) => found.key.toLowerCase() === ROUND_TRAILER.toLowerCase() && /^\d+$/.test(found.value)
  )
  return trailer ? Number(trailer.value) : undefined
}
