import { SecurityViolationError } from '../contract/index.js'

// Local keys that send a remote command elsewhere or run a program during push, fetch or
// ls-remote (lower case, as `git config --list` prints them).
const UNSAFE_REMOTE_KEY =
  /^(core\.(sshcommand|gitproxy|askpass)|credential\..*|remote\..*\.(receivepack|uploadpack|pushurl|proxy|vcs)|url\..*\.(insteadof|pushinsteadof)|https?(\..*)?\.proxy|protocol\..*\.allow|protocol\.allow)$/

/** Refuses `git config --null --list` output that holds an unsafe key for a remote command. */
export function assertSafeRemoteKeys(configList: string): void {
  const unsafe = [
    ...new Set(
      configList
        .split('\0')
        .map((entry) => entry.split('\n')[0]!)
        .filter((key) => UNSAFE_REMOTE_KEY.test(key))
    )
  ]
  if (unsafe.length === 0) return
  throw new SecurityViolationError(
    `The repository's git config sets ${unsafe.slice(0, 5).join(', ')}, which would run a program or redirect the push with the token present; remove it from .git/config [rule unsafe-git-config].`,
    { rule: 'unsafe-git-config', keys: unsafe.slice(0, 20) }
  )
}
