import { join } from 'node:path'
import { gitFoldersAt } from '../sandbox/index.js'

/**
 * The repository's git folder and, for a linked worktree, the common one it shares; `.git`
 * itself when there is none yet (the snapshot then watches only the global files).
 */
export function gitDirs(repoDir: string): string[] {
  return gitFoldersAt(repoDir) ?? [join(repoDir, '.git')]
}
