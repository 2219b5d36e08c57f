import { lstatSync, realpathSync } from 'node:fs'
import { join, sep } from 'node:path'
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
  const segments = path.split('/')
  let current = root
  for (let i = 0; i < segments.length; i++) {
    current = join(current, segments[i]!)
    let stat
    try {
      stat = lstatSync(current)
    } catch {
      return undefined
    }
    const shown = segments.slice(0, i + 1).join('/')
    if (stat.isSymbolicLink())
      return {
        path,
        rule: 'symlink',
        reason: `${printable(shown)} is a symbolic link; edits never go through or onto links`
      }
    if (i < segments.length - 1 && !stat.isDirectory())
      return { path, rule: 'not-a-file', reason: `${printable(shown)} is not a folder` }
    if (i === segments.length - 1 && !stat.isFile())
      return { path, rule: 'not-a-file', reason: 'it exists and is not a regular file' }
  }
  if (!realpathSync(current).startsWith(root + sep))
    return { path, rule: 'symlink', reason: 'it resolves outside the repository' }
  return undefined
}

/** The paths git ignores (tracked files are never ignored): changes there are invisible to review. */
export async function ignoredPaths(git: GitRunner, paths: readonly string[]): Promise<string[]> {
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
