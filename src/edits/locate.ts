import { changedContextRefusal } from './changed-context.js'
import type { FileIndex } from './file-index.js'
import { fitLine, isMisremembered, looseKey } from './line-match.js'
import { nearbyLines, patchError, quote, type FoundNearby } from './patch-error.js'
import type { Placement } from './types.js'

export { indexLines, type FileIndex } from './file-index.js'

/** One line of a block's old side: context that must be there, or a line to remove. */
interface OldLine {
  text: string
  removed: boolean
}

interface LocateRequest {
  path: string
  /** 1-based number of the hunk or block, for messages. */
  number: number
  /** What the reply calls it in messages: 'Hunk', 'SEARCH block'. */
  noun: string
  old: readonly OldLine[]
  /** 0-based line where the reply says the old lines start; null when it gives no number. */
  hint: number | null
  /**
   * How much later than `hint` they may start: the header counted more old lines than the hunk
   * has, and the missing ones were context at its edges.
   */
  slack?: number
  /**
   * What the reply's other hunks say about its line numbers: `verified` when they were found
   * exactly where their numbers put them (then even a block of blank lines, which matches in
   * many places, may be placed by its number), `contradicted` when they were found elsewhere
   * (then numbers settle nothing), `unverified` (the default) when there is nothing to compare.
   */
  hintTrust?: HintTrust
  /** Whether context lines may carry copy slips (SEARCH text is all removed, so never). */
  allowTypos: boolean
  /**
   * Whether a block of only blank and punctuation lines needs its line number even when it
   * matches once (hunks: yes; SEARCH text, which names exactly what to replace: no).
   */
  weakNeedsHint?: boolean
}

export type HintTrust = 'verified' | 'unverified' | 'contradicted'

interface Location {
  at: number
  how: Placement
  whitespaceLines: number
  fuzzyLines: number
  /** For a place the line number settled: how many lines off that number was. */
  hintOffBy?: number
}

interface Fit {
  at: number
  tier: 0 | 1 | 2 | 3
  /** Context lines written from memory (tier 3); non-blank old lines, and context lines, that fit. */
  remembered: number
  fitting: number
  fittingContext: number
  whitespace: number
  trailing: number
  typos: number
  /** Re-indented context lines: removed lines are checked to exist anyway. */
  contextWhitespace: number
}

const TIER_NAMES: Placement[] = ['exact', 'whitespace', 'fuzzy', 'fuzzy']

/**
 * Finds the one place a block of old lines belongs. The model's line number is only a hint:
 * the lines are searched for in the whole file, exactly first, then with whitespace drift, then
 * with small copy slips in context lines, then with one context line written from memory (see
 * `isMisremembered`). Lines to remove must exist (whitespace aside). When the best kind of match
 * occurs more than once, the hint may settle it only if it points clearly at
 * one place; otherwise the block is refused, as is one with more damage than its evidence bears.
 */
export function locate(file: FileIndex, request: LocateRequest): Location {
  const old = request.old.map((line) => ({ ...line, loose: looseKey(line.text) }))
  const nonBlank = old.filter((line) => line.loose !== '').length
  const fits: Fit[] = []
  for (const at of candidates(file, old)) {
    const fit = measure(file, old, at, request.allowTypos)
    if (fit && withinBudget(fit, nonBlank, request.hint !== null)) fits.push(fit)
  }
  if (fits.length === 0) throw notFound(file, request, old)
  const bestTier = Math.min(...fits.map((fit) => fit.tier))
  const best = fits.filter((fit) => fit.tier === bestTier).sort((a, b) => a.at - b.at)
  const trust = request.hintTrust ?? 'unverified'
  const weak = request.weakNeedsHint === true && isWeak(request.old)
  // Blank lines and brackets could be anywhere: even a single match needs the line number.
  const hintAllowed = trust === 'verified' || (trust === 'unverified' && nonBlank > 0)
  // A line written from memory is placed only where the hunk fits one place: never by its number.
  const chosen =
    best.length === 1 && !weak
      ? best[0]!
      : hintAllowed && bestTier < 3
        ? byHint(best, request)
        : undefined
  if (!chosen) throw best.length > 1 ? ambiguous(file, request, best) : weakContext(request)
  const settled = best.length > 1 || weak
  return {
    at: chosen.at,
    how: settled ? 'hint' : TIER_NAMES[chosen.tier]!,
    whitespaceLines: chosen.whitespace + chosen.trailing,
    fuzzyLines: chosen.typos,
    ...(settled ? { hintOffBy: hintDistance(chosen.at, request.hint!, request.slack) } : {})
  }
}

/** Start lines worth measuring: every place where the rarest line to remove, or any context line, occurs. */
function candidates(
  file: FileIndex,
  old: readonly (OldLine & { loose: string })[]
): Iterable<number> {
  const limit = file.lines.length - old.length
  const starts = new Set<number>()
  const add = (k: number) => {
    for (const at of file.byLoose.get(old[k]!.loose) ?? []) {
      if (at - k >= 0 && at - k <= limit) starts.add(at - k)
    }
  }
  let rarest = -1
  old.forEach((line, k) => {
    if (!line.removed) return
    const count = file.byLoose.get(line.loose)?.length ?? 0
    if (rarest < 0 || count < (file.byLoose.get(old[rarest]!.loose)?.length ?? 0)) rarest = k
  })
  if (rarest >= 0) add(rarest)
  else if (old.some((line) => line.loose !== ''))
    old.forEach((line, k) => line.loose !== '' && add(k))
  else old.forEach((_, k) => add(k))
  return starts
}

function measure(
  file: FileIndex,
  old: readonly (OldLine & { loose: string })[],
  at: number,
  allowTypos: boolean
): Fit | undefined {
  let whitespace = 0
  let trailing = 0
  let typos = 0
  let contextWhitespace = 0
  let remembered = 0
  let fitting = 0
  let fittingContext = 0
  for (let k = 0; k < old.length; k++) {
    const line = old[k]!
    const fit = fitLine(file.lines[at + k]!, line.text, file.loose[at + k]!, line.loose)
    if (fit !== 'typo' && fit !== 'none' && line.loose !== '') {
      fitting++
      if (!line.removed) fittingContext++
    }
    if (fit === 'exact') continue
    if (fit === 'trailing') trailing++
    else if (fit === 'whitespace') {
      whitespace++
      if (!line.removed) contextWhitespace++
    } else if (fit === 'typo' && allowTypos && !line.removed) typos++
    else if (allowTypos && !line.removed && remembers(file, at + k, line.loose)) remembered++
    else return undefined
  }
  const tier = remembered > 0 ? 3 : typos > 0 ? 2 : whitespace + trailing > 0 ? 1 : 0
  return {
    at,
    tier,
    remembered,
    fitting,
    fittingContext,
    whitespace,
    trailing,
    typos,
    contextWhitespace
  }
}

/**
 * Whether the reply's context line is the file's line there written from memory, and no line the
 * file has elsewhere (`def send(self):` where the file reads `def close(self):` but has a
 * `def send(self):` too is context copied from another place: the hunk is not about this one).
 */
const remembers = (file: FileIndex, at: number, replyLoose: string) =>
  !file.byLoose.has(replyLoose) && isMisremembered(file.loose[at]!, replyLoose)

/**
 * How much damage a match may carry. A line written from memory needs the rest of the hunk to
 * fit (no slip; three non-blank lines at least, two of them context: most of the context; every
 * line to remove as in the file). With a line number to corroborate it, whitespace drift is
 * free and about one context line in four may carry a slip. Without one, the lines are the only
 * evidence: re-indented context lines count half, slipped ones count whole, and together they
 * may not exceed a fifth of the non-blank lines. (Lines to remove must exist in any case.)
 */
function withinBudget(fit: Fit, nonBlank: number, hinted: boolean): boolean {
  // One line written from memory, beside no slip, three lines that fit, two of them context.
  if (fit.remembered > 0)
    return fit.remembered === 1 && fit.typos === 0 && fit.fitting >= 3 && fit.fittingContext >= 2
  if (hinted) return fit.typos <= Math.max(1, Math.floor(nonBlank / 4))
  return fit.contextWhitespace * 0.5 + fit.typos <= nonBlank * 0.2
}

/** How far a start is from where the reply's numbers put it (0: inside that window). */
export function hintDistance(at: number, hint: number, slack = 0): number {
  return at < hint ? hint - at : at > hint + slack ? at - hint - slack : 0
}

/**
 * The match the line number points at: the only one inside the hint's window, or, for a number a
 * miscount away (at most 3 lines), one clearly nearer than any other. Blank-only blocks need an
 * exact hit. A number further off proves nothing: models shift whole hunks by dozens of lines.
 */
function byHint(fits: readonly Fit[], request: LocateRequest): Fit | undefined {
  const { hint, slack } = request
  if (hint === null) return undefined
  const distance = (fit: Fit) => hintDistance(fit.at, hint, slack)
  const sorted = [...fits].sort((a, b) => distance(a) - distance(b))
  const first = distance(sorted[0]!)
  const second = sorted.length > 1 ? distance(sorted[1]!) : Infinity
  if (second === first) return undefined
  if (first === 0) return sorted[0]
  if (request.old.every((line) => line.text.trim() === '')) return undefined
  return first <= 3 && second >= 3 * first + 3 ? sorted[0] : undefined
}

/** Old lines with nothing distinctive in them: only blank lines and punctuation. */
export function isWeak(old: readonly { text: string }[]): boolean {
  return !old.some((line) => /[\p{L}\p{N}_]{2}/u.test(line.text))
}

function weakContext(request: LocateRequest) {
  const numbers =
    request.hint === null
      ? 'it has no line numbers'
      : request.hintTrust === 'contradicted'
        ? "the reply's other line numbers proved wrong"
        : request.old.some((line) => line.text.trim() !== '') || request.hintTrust === 'verified'
          ? `its line number (${request.hint + 1}) does not point at them`
          : 'a line number alone cannot place a hunk of blank lines'
  return patchError(
    `${request.noun} ${request.number} for ${request.path} has only blank or punctuation lines as its unchanged and removed lines, ` +
      `which could be anywhere, and ${numbers}. Include 2-3 lines with code or text around the change.`,
    {
      kind: 'weak-context',
      file: request.path,
      hunk: request.number,
      expected: request.old.map((line) => line.text)
    }
  )
}

function ambiguous(file: FileIndex, request: LocateRequest, fits: readonly Fit[]) {
  const lines = fits.map((fit) => fit.at + 1)
  const shown = lines.slice(0, 8).join(', ') + (lines.length > 8 ? ', …' : '')
  const settle =
    request.hint === null
      ? 'It has no line numbers to tell them apart: add more unchanged lines around the change, and give its real line numbers'
      : request.hintTrust === 'contradicted'
        ? `Its line number (${request.hint + 1}) cannot settle which, since the other hunks were not at their line numbers: add more unchanged lines around the change so it matches one place only, and give the real line numbers`
        : `Its line number (${request.hint + 1}) does not settle which: add more unchanged lines around the change so it matches one place only`
  return patchError(
    `${request.noun} ${request.number} for ${request.path} matches ${fits.length} places (lines ${shown}). ${settle}.`,
    {
      kind: 'ambiguous-hunk',
      file: request.path,
      hunk: request.number,
      expected: request.old.map((line) => line.text),
      found_nearby: excerpt(file, fits[0]!.at, request.old.length)
    },
    { matches: lines }
  )
}

function notFound(
  file: FileIndex,
  request: LocateRequest,
  old: readonly (OldLine & { loose: string })[]
) {
  const expected = old.map((line) => line.text)
  const missing = old.filter((line) => line.removed && !file.byLoose.has(line.loose))
  const nearest = bestPartial(file, old, request.hint)
  const nearby = nearest === undefined ? undefined : excerpt(file, nearest, old.length)
  const where = nearby ? `\nNear line ${nearby.line} the file reads:\n${quote(nearby.text, 8)}` : ''
  const what = `${request.noun} ${request.number} for ${request.path}`
  if (missing.length > 0) {
    return patchError(
      `${what} removes ${missing.length === 1 ? 'a line that does' : `${missing.length} lines that do`} not exist in the file:\n` +
        `${quote(missing.map((line) => line.text))}${where}\n` +
        'Only remove lines that are in the current content, copied exactly; do not invent or rewrite them.',
      {
        kind: 'removed-line-missing',
        file: request.path,
        hunk: request.number,
        expected: missing.map((line) => line.text),
        found_nearby: nearby
      }
    )
  }
  const changed = changedContextRefusal(file, request, old)
  if (changed) return changed
  const damaged =
    request.hint === null && nearest !== undefined && measure(file, old, nearest, true)
  const reason = damaged
    ? `has no line numbers, and its lines differ from the file's in too many places (${damaged.whitespace} re-indented, ${damaged.typos} changed) to place it on their own`
    : 'does not match the file: its unchanged and removed lines were not found together'
  return patchError(
    `${what} ${reason}.${where}\n` +
      'Copy the unchanged and removed lines exactly from the current content (same indentation), and give the real line numbers in the @@ header.',
    {
      kind: damaged ? 'too-much-damage' : 'hunk-not-found',
      file: request.path,
      hunk: request.number,
      expected,
      found_nearby: nearby
    }
  )
}

/** The start where most of the old lines fit, for the error message; ties go to the hint. */
function bestPartial(
  file: FileIndex,
  old: readonly (OldLine & { loose: string })[],
  hint: number | null
): number | undefined {
  const votes = new Map<number, number>()
  old.forEach((line, k) => {
    if (line.loose === '') return
    for (const at of file.byLoose.get(line.loose) ?? []) {
      const start = Math.max(0, Math.min(at - k, file.lines.length - 1))
      votes.set(start, (votes.get(start) ?? 0) + 1)
    }
  })
  let best: number | undefined
  let bestVotes = 0
  for (const [start, count] of votes) {
    const nearer =
      best !== undefined && hint !== null && Math.abs(start - hint) < Math.abs(best - hint)
    if (count > bestVotes || (count === bestVotes && nearer)) {
      best = start
      bestVotes = count
    }
  }
  if (best === undefined && hint !== null && file.lines.length > 0)
    return Math.min(hint, file.lines.length - 1)
  return best
}

const excerpt = (file: FileIndex, at: number, length: number): FoundNearby =>
  nearbyLines(file.lines, at, length)
