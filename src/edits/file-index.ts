import { looseKey } from './line-match.js'

/**
 * A file's lines with the lookups the locator and the udiff repairs need, built once per file
 * and shared by all its hunks: each hunk then costs its own length, not the file's.
 */
export interface FileIndex {
  lines: readonly string[]
  /** Each line with its whitespace collapsed (`looseKey`). */
  loose: readonly string[]
  /** Where each loose key occurs, in ascending order. */
  byLoose: ReadonlyMap<string, readonly number[]>
}

export function indexLines(lines: readonly string[]): FileIndex {
  const loose = lines.map(looseKey)
  return { lines, loose, byLoose: positions(loose) }
}

function positions(keys: readonly string[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>()
  keys.forEach((key, i) => {
    const at = byKey.get(key)
    if (at) at.push(i)
    else byKey.set(key, [i])
  })
  return byKey
}

/**
 * Every start where `wanted` occurs one after another in `keys` (both loose keys), ascending:
 * what scanning every start would find, found from the places of its rarest key.
 */
export function occurrences(
  wanted: readonly string[],
  keys: readonly string[],
  byKey: ReadonlyMap<string, readonly number[]>
): number[] {
  const length = wanted.length
  if (length === 0) return Array.from({ length: keys.length + 1 }, (_, at) => at)
  let rarest = 0
  for (let k = 0; k < length; k++) {
    const count = byKey.get(wanted[k]!)?.length ?? 0
    if (count === 0) return []
    if (count < byKey.get(wanted[rarest]!)!.length) rarest = k
  }
  const found: number[] = []
  for (const place of byKey.get(wanted[rarest]!)!) {
    const at = place - rarest
    if (at < 0 || at + length > keys.length) continue
    let all = true
    for (let k = 0; k < length && all; k++) all = keys[at + k] === wanted[k]
    if (all) found.push(at)
  }
  return found
}

/** Where the loose keys occur one after another in the file. */
export function occurrencesInFile(wanted: readonly string[], file: FileIndex): number[] {
  return occurrences(wanted, file.loose, file.byLoose)
}

/** The file's non-blank lines: where each is in the file, and their loose keys with lookups. */
interface NonBlankLines {
  at: readonly number[]
  loose: readonly string[]
  byLoose: ReadonlyMap<string, readonly number[]>
}

const nonBlankOf = new WeakMap<FileIndex, NonBlankLines>()

/** Built on first use, once per file: only hunks whose blank lines came and went need it. */
export function nonBlankLines(file: FileIndex): NonBlankLines {
  let found = nonBlankOf.get(file)
  if (!found) {
    const at = file.loose.flatMap((key, i) => (key === '' ? [] : [i]))
    const loose = at.map((i) => file.loose[i]!)
    found = { at, loose, byLoose: positions(loose) }
    nonBlankOf.set(file, found)
  }
  return found
}
