import { Minimatch } from 'minimatch'
import { SecurityViolationError, type RefusalRule } from '../contract/index.js'
import { PROTECTED_GROUPS, type ProtectedGroup } from './protected-paths.js'

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
  rule: RefusalRule
  reason: string
  /** The protected group, for rule `protected-path`. */
  group?: string
}

interface PathPolicyOptions {
  /** Extra globs no edit may touch (the `blocked-paths` input). */
  blockedGlobs?: readonly string[]
  /** Globs of protected paths a maintainer allows (the `allow-protected-paths` input). */
  allowProtected?: readonly string[]
  /** Accept non-ASCII (NFC) path names; control, bidi and invisible characters stay refused. */
  allowNonAscii?: boolean
  /** Files protected in this repository only: those its git config includes (gitIncludedPaths). */
  protectedFiles?: readonly string[]
}

const MAX_PATH_CHARS = 4096
const MAX_SEGMENT_BYTES = 255
const GLOB = { dot: true, nocase: true } as const

// Control characters, bidi overrides and isolates, zero-width characters and Unicode tags.
const HIDDEN_CHARACTERS =
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\u{e0000}-\u{e007f}]/u
// Printable ASCII less the characters git quotes or Windows refuses: `"`, `\`, `:`, `<>|?*`.
const PORTABLE_ASCII = /^[A-Za-z0-9 !#$%&'()+,\-./;=@[\]^_`{}~]*$/
// `.git`, and the names Windows and macOS file systems treat as `.git` (`.git.`, `.git `, `git~1`).
const GIT_DIR = /^(\.git[. ]*|git~\d+)$/i

/**
 * The one choke point for repository paths: canonical relative POSIX paths only, nothing in
 * `.git`, nothing matching a blocked glob, and nothing in the protected set unless a maintainer
 * allowed it. Globs match with `dot` and `nocase`, so `.ENV`, `certs/a.PEM` and dot-directories
 * cannot slip past. `check` is pure; the checks that need the work tree are in repo-paths.ts.
 */
export class PathPolicy {
  readonly blockedGlobs: readonly string[]
  readonly allowProtected: readonly string[]
  readonly allowNonAscii: boolean
  readonly protectedFiles: readonly string[]
  private readonly blocked: readonly Minimatch[]
  private readonly allowed: readonly Minimatch[]

  constructor(options: PathPolicyOptions = {}) {
    this.protectedFiles = (options.protectedFiles ?? []).map((path) => path.toLowerCase())
    this.blockedGlobs = [...BUILTIN_BLOCKED_GLOBS, ...(options.blockedGlobs ?? [])]
    this.allowProtected = [...(options.allowProtected ?? [])]
    this.allowNonAscii = options.allowNonAscii ?? false
    this.blocked = this.blockedGlobs.map(compile)
    this.allowed = this.allowProtected.map(compile)
  }

  check(path: string): PathViolation | undefined {
    return this.checkName(path) ?? this.checkProtected(path)
  }

  /** Every rule except the protected set: what no opt-in can allow. */
  checkName(path: string): PathViolation | undefined {
    const refuse = (rule: RefusalRule, reason: string): PathViolation => ({ path, rule, reason })
    if (path.length === 0) return refuse('empty-path', 'the path is empty')
    if (path.length > MAX_PATH_CHARS)
      return refuse('path-too-long', `the path is longer than ${MAX_PATH_CHARS} characters`)
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
    const charset = this.charsetProblem(path, segments)
    if (charset) return refuse('path-charset', charset)
    const glob = this.blocked.find((pattern) => pattern.match(path))
    if (glob)
      return refuse('blocked-path', `the path matches the blocked pattern "${glob.pattern}"`)
    return undefined
  }

  /** The protected group of a path, unless a maintainer allowed it with allow-protected-paths. */
  checkProtected(path: string): PathViolation | undefined {
    const group =
      protectedGroup(path) ??
      (this.protectedFiles.includes(path.toLowerCase()) ? INCLUDED_CONFIG : undefined)
    if (!group || this.allowsProtected(path)) return undefined
    return {
      path,
      rule: 'protected-path',
      group: group.name,
      reason: `${group.why}; list the path in "allow-protected-paths" if the agent may change it`
    }
  }

  allowsProtected(path: string): boolean {
    return this.allowed.some((pattern) => pattern.match(path))
  }

  /** Refuses the whole set at the first violation, before anything is written. */
  assertAllowed(paths: Iterable<string>, stage: string): void {
    for (const path of paths) {
      const violation = this.check(path)
      if (violation) throw violationError(violation, stage)
    }
  }

  private charsetProblem(path: string, segments: readonly string[]): string | undefined {
    if (path.startsWith('-')) return 'the path starts with "-" and would read as an option'
    if (segments.some((segment) => /[ .]$/.test(segment)))
      return 'a path segment ends with a space or a dot'
    if (segments.some((segment) => Buffer.byteLength(segment) > MAX_SEGMENT_BYTES))
      return `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`
    if (!this.allowNonAscii && !PORTABLE_ASCII.test(path))
      return 'the path holds characters outside portable ASCII (no ", \\, :, <, >, |, ?, *)'
    if (this.allowNonAscii && (/["\\:<>|?*]/.test(path) || path !== path.normalize('NFC')))
      return 'the path holds ", \\, :, <, >, |, ?, * or is not in Unicode NFC form'
    return undefined
  }
}

const INCLUDED_CONFIG: ProtectedGroup = {
  name: 'git-config-include',
  why: "the repository's git config includes this file, so an edit of it is an edit of git's config (filters, hooks)",
  globs: []
}

/** A compiled glob matches as `minimatch(path, glob, GLOB)` does, without parsing it per path. */
function compile(glob: string): Minimatch {
  return new Minimatch(glob, GLOB)
}

// Compiled on the first check, not at import: most runs never check a path.
let compiledGroups: Array<{ group: ProtectedGroup; globs: Minimatch[] }> | undefined

export function protectedGroup(path: string): ProtectedGroup | undefined {
  compiledGroups ??= PROTECTED_GROUPS.map((group) => ({ group, globs: group.globs.map(compile) }))
  return compiledGroups.find(({ globs }) => globs.some((glob) => glob.match(path)))?.group
}

export function violationError(violation: PathViolation, stage: string): SecurityViolationError {
  const { path, rule, reason, group } = violation
  return new SecurityViolationError(
    `Refused to touch "${printable(path)}" (${stage}): ${reason} [rule ${rule}].`,
    { path, rule, stage, ...(group ? { group } : {}) }
  )
}

/** A path as it may be shown: hidden characters made visible, length capped. */
export function printable(path: string): string {
  const shown = [...path]
    .map((char) =>
      /^[\x20-\x7e]$/.test(char) ? char : `\\u{${char.codePointAt(0)!.toString(16)}}`
    )
    .join('')
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown
}
