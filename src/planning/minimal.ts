/** Seed Maverick's target for an issue fix: fewer than 100 changed lines. */
export const MINIMAL_FIX_LINES = 100

interface MinimalFix {
  changed_lines: number
  added: number
  removed: number
  limit: number
  is_minimal: boolean
}

/** Added and removed lines of a unified diff (headers excluded), against the limit. */
export function minimalFix(diff: string): MinimalFix {
  let added = 0
  let removed = 0
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ') || line.startsWith('--- ')) continue
    if (line.startsWith('+')) added++
    else if (line.startsWith('-')) removed++
  }
  const changed = added + removed
  return {
    changed_lines: changed,
    added,
    removed,
    limit: MINIMAL_FIX_LINES,
    is_minimal: changed < MINIMAL_FIX_LINES
  }
}
