import { SecurityViolationError } from '../contract/index.js'
import type { ConfigEntry } from './repo-config.js'

// Repository keys that send a remote command elsewhere or run a program during push, fetch or
// ls-remote (lower case, as `git config --list` prints them).
const UNSAFE_REMOTE_KEY =
  /^(core\.(sshcommand|gitproxy|askpass)|credential\..*|remote\..*\.(receivepack|uploadpack|pushurl|proxy|vcs)|url\..*\.(insteadof|pushinsteadof)|https?(\..*)?\.proxy|protocol\..*\.allow|protocol\.allow)$/s

/**
 * Refuses the repository's config entries (its includes followed) when one would run a program
 * or redirect the push with the token present. Named with the file that sets it, and the fix.
 */
export function assertSafeRemoteKeys(entries: readonly ConfigEntry[]): void {
  const unsafe = entries.filter((entry) => UNSAFE_REMOTE_KEY.test(entry.key))
  if (unsafe.length === 0) return
  const keys = [...new Set(unsafe.map((entry) => entry.key))]
  const named = [...new Set(unsafe.map((entry) => `${entry.key} (in ${entry.origin})`))]
  throw new SecurityViolationError(
    `The repository's git config sets ${named.slice(0, 5).join(', ')}, which would run a program or redirect the push with the token present; remove it (git config --unset, or from the included file) and rerun [rule unsafe-git-config].`,
    { rule: 'unsafe-git-config', keys: keys.slice(0, 20) }
  )
}
