import { existsSync, realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'
import { gitDirs } from './git-dirs.js'
import { repositoryEntries, usersOwn, type ConfigEntry } from './repo-config.js'

// Repository keys that send a remote command elsewhere or run a program during push, fetch or
// ls-remote (lower case, as `git config --list` prints them).
const UNSAFE_REMOTE_KEY =
  /^(core\.(sshcommand|gitproxy|askpass)|credential\..*|remote\..*\.(receivepack|uploadpack|pushurl|proxy|vcs)|url\..*\.(insteadof|pushinsteadof)|https?(\..*)?\.proxy|protocol\..*\.allow|protocol\.allow)$/s

// A remote's own keys (`remote.<name>.<key>`), not `remote.pushDefault`.
const REMOTE_KEY = /^remote\..+\.[^.]+$/s
// What makes a local command fetch: the partial-clone extension, the transport program keys.
const PARTIAL_CLONE_KEY = /^(extensions\.partialclone|core\.(sshcommand|gitproxy))$/
const TRANSPORT_PROGRAM = /^core\.(sshcommand|gitproxy)$/

// The repository's http.* keys that neither send the request elsewhere nor expose what it
// carries: buffer size and protocol version. Everything else (curloptResolve, proxy, sslVerify,
// sslCAInfo, sslCert, cookieFile, extraHeader, emptyAuth, ...) can redirect the push or hand its
// token to someone, and a per-URL key outranks Patchsmith's own command-line one.
const HARMLESS_HTTP_KEY = /^http\.(postbuffer|version)$/

/**
 * Refuses the effective config (includes followed) at a command that talks to a remote, when
 * one of its keys would run a program, redirect the push or expose the token: a transport
 * program or redirect the repository sets, a remote's key set anywhere but `.git/config`
 * itself (an included tracked file can add a second url that the push would also go to), and
 * a repository http.* key other than the harmless ones and the `http.<server>/.extraheader`
 * that actions/checkout persists (`headers`: for the workflow's server, and the very key the
 * push's own header replaces). Named with the file that sets it, and the fix.
 */
export function assertSafeRemoteKeys(
  entries: readonly ConfigEntry[],
  repoDir: string,
  headers: readonly string[]
): void {
  const own = ownConfig(repoDir)
  const allowed = new Set(
    headers.filter((key) => /\.extraheader$/i.test(key)).map((key) => key.toLowerCase())
  )
  const unsafe = [
    ...repositoryEntries(entries).filter(
      (entry) =>
        UNSAFE_REMOTE_KEY.test(entry.key) ||
        (entry.key.startsWith('http.') &&
          !HARMLESS_HTTP_KEY.test(entry.key) &&
          !allowed.has(entry.key.toLowerCase()))
    ),
    ...transportKeysElsewhere(entries, own)
  ]
  refuseKeys(unsafe)
}

/**
 * Refuses, before every git command (not only the remote ones), a remote or partial-clone key
 * that a file other than `.git/config` itself sets (an included tracked `.gitconfig`): a local
 * command reaches a remote too, when it lazily fetches a missing object from a `promisor`
 * remote (`git log` reading a `mailmap.blob` does), and that fetch runs the remote's
 * `uploadpack`. actions/checkout's own partial clone lives in `.git/config` and stays allowed.
 */
export function assertOwnTransportKeys(entries: readonly ConfigEntry[], repoDir: string): void {
  refuseKeys(transportKeysElsewhere(entries, ownConfig(repoDir)))
}

/**
 * The user's own transport programs (global or system `core.sshCommand`, a deploy key's) are
 * not refused here: the seal (driverSeal) keeps them where they run nothing of the repository's.
 */
function transportKeysElsewhere(entries: readonly ConfigEntry[], own: string): ConfigEntry[] {
  return entries.filter(
    (entry) =>
      entry.scope !== 'command' &&
      (REMOTE_KEY.test(entry.key) ||
        (PARTIAL_CLONE_KEY.test(entry.key) &&
          !(usersOwn(entry.scope) && TRANSPORT_PROGRAM.test(entry.key)))) &&
      !sameFile(entry.origin, own)
  )
}

function refuseKeys(unsafe: readonly ConfigEntry[]): void {
  if (unsafe.length === 0) return
  const keys = [...new Set(unsafe.map((entry) => entry.key))]
  const named = [...new Set(unsafe.map((entry) => `${entry.key} (in ${entry.origin})`))]
  throw new SecurityViolationError(
    `The repository's git config sets ${named.slice(0, 5).join(', ')}, which would run a program, redirect the push or expose its token; remove it (git config --unset, or from the included file; a remote belongs in .git/config itself) and rerun [rule unsafe-git-config].`,
    { rule: 'unsafe-git-config', keys: keys.slice(0, 20) }
  )
}

/**
 * The one URL of `remote.<name>` as `.git/config` itself sets it: what every push, fetch and
 * ls-remote then goes to, instead of the remote's name (which git resolves through every url,
 * pushurl and include). Undefined when there is none; two are refused.
 */
export function ownRemoteUrl(
  entries: readonly ConfigEntry[],
  repoDir: string,
  remote: string
): string | undefined {
  const own = ownConfig(repoDir)
  const urls = entries.filter(
    (entry) => entry.scope !== 'command' && entry.key === `remote.${remote}.url`
  )
  const foreign = urls.filter((entry) => !sameFile(entry.origin, own))
  if (urls.length > 1 || foreign.length > 0) {
    const named = urls.map((entry) => `${entry.value} (in ${entry.origin})`)
    throw new SecurityViolationError(
      `remote.${remote}.url is set ${urls.length} times (${named.slice(0, 5).join(', ')}); a push would go to every one. Keep exactly one, in .git/config itself, and rerun [rule unsafe-git-config].`,
      { rule: 'unsafe-git-config', keys: [`remote.${remote}.url`] }
    )
  }
  const url = urls[0]?.value
  if (url?.startsWith('-')) {
    throw new SecurityViolationError(
      `remote.${remote}.url "${url}" reads as an option; set a URL and rerun [rule unsafe-git-config].`,
      { rule: 'unsafe-git-config', keys: [`remote.${remote}.url`] }
    )
  }
  return url
}

/** `.git/config` itself: the common folder's config, where git and actions/checkout keep remotes. */
function ownConfig(repoDir: string): string {
  return canonical(join(gitDirs(repoDir).at(-1)!, 'config'))
}

function sameFile(origin: string, own: string): boolean {
  return canonical(origin) === own
}

function canonical(path: string): string {
  // As the kernel reads it: a link is followed before a `..` after it.
  try {
    return existsSync(path) ? realpathSync.native(path) : resolve(path)
  } catch {
    return resolve(path)
  }
}
