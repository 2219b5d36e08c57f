import { GitConflictError, PermissionDeniedError, type PatchsmithError } from '../contract/index.js'
import type { GitOutput } from './git-output.js'

// `[rejected] (fetch first)` and the like: the branch moved on the remote between our look and
// our push. `[remote rejected]` is the remote refusing (a hook, a protection rule).
const CONFLICT = /\[rejected\]/i
// GitHub's answer to a push a ruleset or branch protection refuses for its unsigned commits.
const UNSIGNED = /GH0(?:06|13)\b[\s\S]*(?:verified signatures|signed commits)/i
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
  if (UNSIGNED.test(text))
    return new PermissionDeniedError(
      `Push of "${branch}" was refused: origin's rules require verified (signed) commits. Add the line "commit-signing: github" to the settings input, so Patchsmith makes its commits through the GitHub API, which signs them. ${reason(text)}`,
      { ...details, rule: 'unsigned-commits-refused' }
    )
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

/**
 * A remote that cannot be read before any work starts: none configured (`url` undefined), one
 * that cannot be reached (no such host or path, the network), or one that refuses access.
 */
export function remoteReadError(
  remote: string,
  stderr: string,
  url: string | undefined
): PatchsmithError {
  const text = stderr.trim()
  const details = { remote, stderr: text.slice(-2_000) }
  if (url === undefined)
    return new PermissionDeniedError(
      `There is no remote "${remote}" to push to; add one, or run with push disabled (push: false).`,
      { ...details, rule: 'no-remote' }
    )
  const where = `${remote} (${withoutCredentials(url)})`
  if (UNREACHABLE.test(text) || /does not appear to be a git repository/i.test(text))
    return new PermissionDeniedError(`Cannot reach the remote ${where}: ${reason(text)}`, {
      ...details,
      rule: 'remote-unreachable'
    })
  return new PermissionDeniedError(`Cannot read the remote ${where}: ${reason(text)}`, {
    ...details,
    rule: 'remote-unreadable'
  })
}

/**
 * What a `push --dry-run` says about push access, before any work: undefined when the push
 * would be accepted or is only rejected as not a fast-forward (an existing branch, judged
 * later), else PERMISSION_DENIED naming the remote and what it answered.
 */
export function pushPermissionError(
  remote: string,
  out: GitOutput,
  url: string | undefined
): PatchsmithError | undefined {
  const text = `${out.stdout}\n${out.stderr}`.trim()
  if (out.exitCode === 0 || CONFLICT.test(text)) return undefined
  const where = url === undefined ? remote : `${remote} (${withoutCredentials(url)})`
  return new PermissionDeniedError(
    `Cannot push to ${where}: ${reason(text)}. Give the token push access (permissions: contents: write), or run with push: false.`,
    { remote, stderr: text.slice(-2_000), rule: 'push-not-allowed' }
  )
}

function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1')
}

/** The line that says why: git's `(reason)` of a rejected ref, else the cause git names. */
function reason(text: string): string {
  const rejected = /\[(?:remote )?rejected\][^\n]*/i.exec(text)
  if (rejected) return rejected[0].trim()
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !GIT_ADVICE.test(line))
  // The cause in the network's or the server's own words (`ssh: Could not resolve hostname …`,
  // `ERROR: Repository not found.`), not git's summary after them.
  const causes = lines.filter((line) => !GIT_SUMMARY.test(line))
  return (
    lines.find((line) => UNREACHABLE.test(line)) ?? causes.at(-1) ?? lines.at(-1) ?? 'no message'
  )
}

// What git adds after every failed remote read, whatever the cause.
const GIT_ADVICE =
  /^(please make sure you have the correct access rights|and the repository exists\.?)$/i
const GIT_SUMMARY = /^fatal: could not read from remote repository\.?$/i
