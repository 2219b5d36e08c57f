interface StatusEntry {
  /** Two letters: staged and unstaged state, as in `git status --short` ('.' for unchanged). */
  xy: string
  path: string
}

export interface RepoStatus {
  /** The checked-out branch; undefined when HEAD is detached. */
  branch?: string
  /** HEAD's commit; undefined in a repository without commits. */
  head?: string
  /** Tracked files with staged or unstaged changes. */
  changed: StatusEntry[]
  /** Paths left unmerged by a merge, rebase or cherry-pick. */
  unmerged: string[]
}

/**
 * For a scan of every tracked and untracked file that a check relies on: exact, whatever the
 * repository configures. No untracked cache: it trusts a folder's cached listing while the
 * folder's mtime and ctime seconds are unchanged, and code that plants a file and sets the
 * folder's mtime back within the same second is then not seen (a test shows it). ctime is
 * trusted and the whole stat compared for tracked files, so a rewrite that keeps size and mtime
 * is still seen.
 */
export const WORKTREE_SCAN = [
  // A check only reads: no refresh of the index written back (which fails on a full disk).
  '--no-optional-locks',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.trustctime=true',
  '-c',
  'core.checkStat=default'
]

/**
 * `git status --porcelain=v2 --branch -z` of tracked files, exactly (WORKTREE_SCAN: nothing
 * written, whole stats); the untracked ones are untrackedPaths'.
 */
export function statusArgs(): string[] {
  return [
    ...WORKTREE_SCAN,
    'status',
    '--porcelain=v2',
    '--branch',
    '--untracked-files=no',
    '-z',
    '--ignore-submodules=all'
  ]
}

/** Parses `git status --porcelain=v2 --branch -z`. */
export function parseStatus(text: string): RepoStatus {
  const status: RepoStatus = { changed: [], unmerged: [] }
  const fields = text.split('\0')
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!
    if (field.startsWith('# branch.oid ')) {
      const oid = field.slice('# branch.oid '.length)
      if (/^[0-9a-f]{40,64}$/.test(oid)) status.head = oid
    } else if (field.startsWith('# branch.head ')) {
      const head = field.slice('# branch.head '.length)
      if (head !== '(detached)') status.branch = head
    } else if (field.startsWith('1 ')) {
      status.changed.push({ xy: field.slice(2, 4), path: afterSpaces(field, 8) })
    } else if (field.startsWith('2 ')) {
      status.changed.push({ xy: field.slice(2, 4), path: afterSpaces(field, 9) })
      const from = fields[++i]
      if (from) status.changed.push({ xy: field.slice(2, 4), path: from })
    } else if (field.startsWith('u ')) {
      status.unmerged.push(afterSpaces(field, 10))
    }
  }
  return status
}

/** The rest of the line after `count` space-separated fields (a path may hold spaces). */
function afterSpaces(line: string, count: number): string {
  let at = 0
  for (let i = 0; i < count; i++) at = line.indexOf(' ', at) + 1
  return line.slice(at)
}
