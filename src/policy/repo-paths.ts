import { realpathSync } from 'node:fs'
import { sep } from 'node:path'
import { walkPath } from '../git/index.js'
import { printable, violationError, type PathPolicy, type PathViolation } from './path-policy.js'

/** What the policy needs of git: the Git class fits it (argument arrays, safe config). */
export interface GitRunner {
  exec(
    args: readonly string[],
    options?: { allowFailure?: boolean; input?: string }
  ): Promise<{ exitCode: number; stdout: string; stderr: string }>
}

/**
 * Each existing component of the path, checked with lstat: a symbolic link anywhere on the way
 * (or at the end) could lead a write or a read outside the repository, so it is refused; the
 * repository itself must resolve inside its real path. A missing tail is fine (a new file).
 */
export function symlinkOnTheWay(repoDir: string, path: string): PathViolation | undefined {
  const root = realpathSync(repoDir)
  const found = walkPath(root, path)
  switch (found.kind) {
    case 'missing':
      return undefined
    case 'symlink':
      return {
        path,
        rule: 'symlink',
        reason: `${printable(found.at)} is a symbolic link; edits never go through or onto links`
      }
    case 'not-a-folder':
      return { path, rule: 'not-a-file', reason: `${printable(found.at)} is not a folder` }
    case 'not-a-file':
      return { path, rule: 'not-a-file', reason: 'it exists and is not a regular file' }
    case 'file':
      if (!realpathSync(found.full).startsWith(root + sep))
        return { path, rule: 'symlink', reason: 'it resolves outside the repository' }
      return undefined
  }
}

/** The paths git ignores (tracked files are never ignored): changes there are invisible to review. */
async function ignoredPaths(git: GitRunner, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return []
  const out = await git.exec(['check-ignore', '-z', '--stdin'], {
    allowFailure: true,
    input: paths.join('\0') + '\0'
  })
  if (out.exitCode === 1) return []
  if (out.exitCode !== 0)
    throw new Error(`git check-ignore failed (exit ${out.exitCode}): ${out.stderr.trim()}`)
  return out.stdout.split('\0').filter((path) => path.length > 0)
}

/**
 * The checks of a set of repository paths that need the work tree: the policy, symlinks on the
 * way, and gitignored paths. Refuses the whole set at the first violation.
 */
export async function assertRepoPaths(
  paths: readonly string[],
  policy: PathPolicy,
  repoDir: string,
  git: GitRunner,
  stage: string,
  options: { askGitignore?: boolean } = {}
): Promise<void> {
  policy.assertAllowed(paths, stage)
  for (const path of paths) {
    const violation = symlinkOnTheWay(repoDir, path)
    if (violation) throw violationError(violation, stage)
  }
  const ignored = options.askGitignore === false ? [] : await ignoredPaths(git, paths)
  if (ignored.length > 0) {
    const path = ignored[0]!
    throw violationError(
      {
        path,
        rule: 'gitignored',
        reason: 'git ignores it, so the change would be hidden from git status and review'
      },
      stage
    )
  }
}
