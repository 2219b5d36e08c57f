import { SecurityViolationError, type RefusalRule } from '../contract/index.js'
import type { HeaderNames, ReplyClaims } from '../edits/index.js'
import { violationError, type PathPolicy } from './path-policy.js'

interface ClaimOptions {
  /**
   * The reply is for one planned file and lands on it whatever its headers say, so `---`/`+++`
   * names that disagree with each other (`before.c` / `patched_before.c`) are only checked
   * against the policy, each of them, not refused as a rename. Names that disagree with a
   * `diff --git` line (T07) are refused all the same (the parser asks).
   */
  oneFile?: boolean
}

// The most telling refusal first: a copy with mismatched names is a copy, not a typo.
const TELLING = ['patch-copy-rename', 'patch-binary', 'patch-mode', 'patch-parse'] as const

/**
 * The policy's judgement of a reply as its format read it (see edits' `readReply`), before it
 * meets a file: a header asking for what no text edit may do (modes, symlinks, gitlinks, copies,
 * renames, binaries, quoted names, names that disagree) is hostile, not damaged, and every name
 * the reply gives, both ways git may read it, passes the path policy. SECURITY_VIOLATION, no
 * repair. Names that pass but differ from the planned path are left to the applier, which lands
 * the edit on the planned path.
 */
export function guardReplyClaims(
  claims: ReplyClaims,
  policy: PathPolicy,
  options: ClaimOptions = {}
): void {
  const ask = TELLING.map((rule) => claims.asks.find((a) => a.rule === rule)).find(Boolean)
  if (ask) refuse(ask.rule, `${ask.message}`, ask.line)
  if (!options.oneFile) {
    const renamed = claims.sections.find((section) => !section.git && namesDisagree(section))
    if (renamed)
      refuse('patch-parse', 'The --- and +++ names of a section disagree; renames are refused.')
  }
  for (const path of [...diffPaths(claims.sections), ...claims.paths]) {
    const violation = policy.check(path)
    if (violation) throw violationError(violation, 'diff header')
  }
}

/**
 * Every name a diff gives, read both ways git may read it: without its `a/`/`b/` prefix, and
 * for a name without one, also with its first segment stripped (`-p1`): `zz/.env` is `.env`.
 */
export function diffPaths(sections: readonly HeaderNames[]): string[] {
  const paths = new Set<string>()
  for (const section of sections) {
    if (section.git) {
      paths.add(section.git.old.slice(2))
      paths.add(section.git.new.slice(2))
    }
    for (const [name, prefix] of [
      [section.old, 'a/'],
      [section.new, 'b/']
    ] as const) {
      if (name === null || name === undefined) continue
      if (name.startsWith(prefix)) {
        paths.add(name.slice(2))
        continue
      }
      paths.add(name)
      const stripped = name.split('/').slice(1).join('/')
      if (stripped) paths.add(stripped)
    }
  }
  return [...paths]
}

function namesDisagree(section: HeaderNames): boolean {
  const strip = (name: string | null | undefined, prefix: string) =>
    name && name.startsWith(prefix) ? name.slice(2) : name
  const old = strip(section.old, 'a/')
  const name = strip(section.new, 'b/')
  return old !== null && old !== undefined && name !== null && name !== undefined && old !== name
}

function refuse(rule: RefusalRule, message: string, line?: number): never {
  throw new SecurityViolationError(`${message} [rule ${rule}]`, {
    rule,
    ...(line === undefined ? {} : { line }),
    stage: 'diff'
  })
}
