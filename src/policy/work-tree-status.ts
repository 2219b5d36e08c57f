import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { WORKTREE_SCAN, nulFields } from '../git/index.js'
import type { GitRunner } from './repo-paths.js'

// What git and lstat say of the work tree's files, for the validation watch.

export interface StatusEntry {
  /** `git status --porcelain=v1`'s two letters: index, work tree ('??' untracked). */
  xy: string
  path: string
}

/**
 * What git status reports: tracked changes and untracked files (not ignored ones); of `paths`
 * alone when given (literally: a name is never a pattern).
 */
export async function workTreeStatus(
  git: GitRunner,
  paths?: readonly string[]
): Promise<StatusEntry[]> {
  const out = await git.exec([
    ...WORKTREE_SCAN,
    ...(paths ? ['--literal-pathspecs'] : []),
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    // A gitlink's folder may hold a repository validation made, with config of its own.
    '--ignore-submodules=all',
    ...(paths ? ['--', ...paths] : [])
  ])
  return nulFields(out.stdout)
    .filter((field) => field.length > 3)
    .map((field) => ({ xy: field.slice(0, 2), path: field.slice(3) }))
}

/** What changes whenever the file is written, replaced or removed (ctime cannot be set back). */
export function fileStamp(repoDir: string, path: string): string {
  const stats = lstatSync(join(repoDir, path), { bigint: true, throwIfNoEntry: false })
  return stats
    ? `${stats.mode}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
    : 'missing'
}
