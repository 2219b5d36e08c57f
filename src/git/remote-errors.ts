import { GitConflictError, PermissionDeniedError, type PatchsmithError } from '../contract/index.js'
import type { GitOutput } from './git.js'

// `[rejected] (fetch first)` and the like: the branch moved on the remote between our look and
// our push. `[remote rejected]` is the remote refusing (a hook, a protection rule).
const CONFLICT = /\[rejected\]/i
const UNREACHABLE =
  /could not resolve host|failed to connect|connection (timed out|refused|reset)|network is unreachable|operation timed out|early eof|rpc failed/i

/** What a failed push means for the run: the remote moved (GIT_CONFLICT), or it said no. */
export function pushError(branch: string, out: GitOutput): PatchsmithError {
  const text = `${out.stdout}\n${out.stderr}`.trim()
  const details = { branch, stderr: text.slice(-2_000) }
  if (CONFLICT.test(text)) {
    return new GitConflictError(
      `Push of "${branch}" was rejected because the branch changed on origin meanwhile: ${reason(text)}`,
      { ...details, rule: 'push-rejected-conflict' }
    )
  }
  const rule = /hook declined/i.test(text)
    ? 'push-hook-declined'
    : UNREACHABLE.test(text)
      ? 'remote-unreachable'
      : 'push-refused'
  return new PermissionDeniedError(`Push of "${branch}" was refused: ${reason(text)}`, {
    ...details,
    rule
  })
}

/** A remote that cannot be read (missing, unreachable, or no access) before any work starts. */
export function remoteReadError(remote: string, stderr: string): PatchsmithError {
  const text = stderr.trim()
  const missing = /does not appear to be a git repository|no such remote/i.test(text)
  return new PermissionDeniedError(
    missing
      ? `There is no remote "${remote}" to push to; run with push disabled (push: false).`
      : `Cannot read the remote "${remote}": ${reason(text)}`,
    { remote, stderr: text.slice(-2_000), rule: missing ? 'no-remote' : 'remote-unreadable' }
  )
}

/** The line that says why: git's `(reason)` of a rejected ref, else the last line. */
function reason(text: string): string {
  const rejected = /\[(?:remote )?rejected\][^\n]*/i.exec(text)
  if (rejected) return rejected[0].trim()
  const lines = text.split('\n').filter((line) => line.trim().length > 0)
  return lines[lines.length - 1]?.trim() ?? 'no message'
}
