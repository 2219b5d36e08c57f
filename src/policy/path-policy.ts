import { minimatch } from 'minimatch'
import { SecurityViolationError } from '../contract/index.js'

/** The seed's securityPreCheck patterns: no edit may touch these, whatever the plan says. */
export const BUILTIN_BLOCKED_GLOBS = [
  '**/.env*',
  '**/config/secrets/**',
  '**/*.pem',
  '**/*.key',
  '**/deployment/**'
] as const

export interface PathViolation {
  path: string
  rule: string
  reason: string
}

export interface PathPolicyOptions {
  blockedGlobs?: readonly string[]
}

// Control characters, bidi overrides and isolates, zero-width characters and Unicode tags.
const HIDDEN_CHARACTERS =
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/u
// `.git`, and the names Windows and macOS file systems treat as `.git` (`.git.`, `.git `, `git~1`).
const GIT_DIR = /^(\.git[. ]*|git~\d+)$/i

/**
 * The one choke point for repository paths: canonical relative POSIX paths only, nothing in
 * `.git` or `.github` (workflows run with the repository's secrets), nothing matching a blocked
 * glob. Globs match with `dot` and `nocase`, so `.ENV`, `certs/a.PEM` and dot-directories cannot
 * slip past.
 */
export class PathPolicy {
  readonly blockedGlobs: readonly string[]

  constructor(options: PathPolicyOptions = {}) {
    this.blockedGlobs = [...BUILTIN_BLOCKED_GLOBS, ...(options.blockedGlobs ?? [])]
  }

  check(path: string): PathViolation | undefined {
    const refuse = (rule: string, reason: string): PathViolation => ({ path, rule, reason })
    if (path.length === 0) return refuse('empty-path', 'the path is empty')
    if (HIDDEN_CHARACTERS.test(path))
      return refuse('path-charset', 'the path holds control, bidi or invisible characters')
    if (path.includes('\\')) return refuse('path-charset', 'the path holds a backslash')
    if (path.startsWith('/') || /^[A-Za-z]:/.test(path))
      return refuse(
        'absolute-path',
        'absolute paths are refused; use a path relative to the repository'
      )
    const segments = path.split('/')
    if (segments.some((segment) => segment === '..'))
      return refuse('path-traversal', 'the path climbs out with ".."')
    if (segments.some((segment) => segment === '.' || segment === ''))
      return refuse(
        'non-canonical-path',
        'the path has "." or empty segments; write it canonically'
      )
    if (segments.some((segment) => GIT_DIR.test(segment)))
      return refuse('git-directory', 'nothing inside .git may be edited')
    if (segments[0]!.toLowerCase() === '.github')
      return refuse(
        'protected-path',
        'files under .github (workflows, actions, CODEOWNERS) are changed by people, not by the agent'
      )
    const glob = this.blockedGlobs.find((pattern) =>
      minimatch(path, pattern, { dot: true, nocase: true })
    )
    if (glob) return refuse('blocked-path', `the path matches the blocked pattern "${glob}"`)
    return undefined
  }

  /** Refuses the whole set at the first violation, before anything is written. */
  assertAllowed(paths: Iterable<string>, stage: string): void {
    for (const path of paths) {
      const violation = this.check(path)
      if (violation) {
        throw new SecurityViolationError(
          `Refused to touch "${path}" (${stage}): ${violation.reason} [rule ${violation.rule}].`,
          { path, rule: violation.rule, stage }
        )
      }
    }
  }
}
