import { InvalidDiffError, type ErrorDetails, type PatchErrorKind } from '../contract/index.js'

/** Where a refused hunk could have gone: the file's lines near its best partial match. */
export interface FoundNearby {
  /** 1-based line number of the first line shown. */
  line: number
  text: string[]
}

/** The structured refusal the repair prompt and the logs use (seed: `kind: 'patch_error'`). */
export interface PatchError {
  kind: PatchErrorKind
  file?: string
  /** 1-based hunk, block or edit number within the file. */
  hunk?: number
  /** The lines the reply expected to find. */
  expected?: string[]
  found_nearby?: FoundNearby
  /** 1-based line of the reply the problem is on, when it is one line. */
  line?: number
}

/**
 * A refusal with a message that tells the model exactly what to fix, and the same facts as data
 * in `details.patch_error`. `details.rule` repeats the kind for callers that only need that.
 */
export function patchError(
  message: string,
  error: PatchError,
  extra: Record<string, unknown> = {}
): InvalidDiffError {
  const details: ErrorDetails = { rule: error.kind, patch_error: error, ...extra }
  if (error.file !== undefined) details.path = error.file
  if (error.hunk !== undefined) details.hunk = error.hunk
  if (error.line !== undefined) details.line = error.line
  if (error.expected !== undefined) details.expected = error.expected
  return new InvalidDiffError(message, details)
}

/** Lines quoted in a message: a few, each clipped, so a repair prompt stays short. */
export function quote(lines: readonly string[], max = 6): string {
  const shown = lines.slice(0, max).map((line) => `    ${clip(line, 120)}`)
  if (lines.length > max) shown.push(`    … (${lines.length - max} more)`)
  return shown.join('\n')
}

export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** The file's lines around a place (one before, one after), for `found_nearby`. */
export function nearbyLines(lines: readonly string[], at: number, length: number): FoundNearby {
  const from = Math.max(0, at - 1)
  const to = Math.min(lines.length, at + Math.max(length, 1) + 1)
  return { line: from + 1, text: lines.slice(from, to) }
}
