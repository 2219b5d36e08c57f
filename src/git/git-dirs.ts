import { existsSync, readFileSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'

/** The repository's git folder and, for a linked worktree, the common one it shares. */
export function gitDirs(repoDir: string): string[] {
  const gitDir = resolveGitDir(repoDir)
  const dirs = [gitDir]
  const common = join(gitDir, 'commondir')
  if (existsSync(common)) dirs.push(resolve(gitDir, readFileSync(common, 'utf8').trim()))
  return dirs
}

/** `.git` as a folder, or the folder a `.git` file (worktree, submodule) points to. */
function resolveGitDir(repoDir: string): string {
  const dotGit = join(repoDir, '.git')
  try {
    if (statSync(dotGit).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim()
      if (pointer) return isAbsolute(pointer) ? pointer : resolve(repoDir, pointer)
    }
  } catch {
    // no .git here: the snapshot then watches only the global files
  }
  return dotGit
}
