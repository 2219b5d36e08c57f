import { execFileSync } from 'node:child_process'
import { accessSync, constants, realpathSync } from 'node:fs'
import { delimiter, dirname, isAbsolute, resolve } from 'node:path'
import { findInPath } from '@actions/io'
import { HOST_ENV } from './environment.js'
import type { Programs } from './jail-command.js'
import { contains } from './layout.js'

/** How long a program here may take to answer (the probe, `bwrap --help`). */
export const PROBE_TIMEOUT_MS = 15_000

/**
 * The programs the backends run, found once per run on the PATH (absolute entries only), never
 * in `writable`: the work tree and git's folders, where a command writes.
 */
export async function findPrograms(writable: readonly string[] = []): Promise<Programs> {
  // Never through a relative PATH entry, nor an absolute one into the work tree (a workflow's
  // `$GITHUB_WORKSPACE/bin`): these run as root outside the jail, and a validation command can
  // rewrite a program there for the next jail (found by attack round 13).
  const find = async (name: string) =>
    (await findInPath(name)).find((path) => trustedOnHost(path, writable))
  const names = ['bwrap', 'unshare', 'sudo', 'setpriv', 'prlimit', 'mount', 'umount', 'ip', 'find']
  // perl and env: the unshare backends' seccomp loader (attribute-filter.ts).
  names.push('perl', 'env')
  names.push('git')
  const paths = await Promise.all(names.map(find))
  const found: Programs = Object.fromEntries(names.map((name, index) => [name, paths[index]]))
  // sbin is not on every user's PATH.
  for (const name of ['mount', 'umount', 'ip'] as const)
    found[name] ??= ['/usr/sbin', '/sbin', '/usr/bin', '/bin']
      .map((dir) => `${dir}/${name}`)
      .find((path) => isExecutable(path))
  return { ...found, bwrapOptions: found.bwrap ? bwrapOptions(found.bwrap) : undefined }
}

function bwrapOptions(bwrap: string): Programs['bwrapOptions'] {
  try {
    const help = execFileSync(bwrap, ['--help'], {
      encoding: 'utf8',
      timeout: PROBE_TIMEOUT_MS,
      env: HOST_ENV
    })
    return { size: help.includes('--size'), perms: help.includes('--perms') }
  } catch {
    return { size: false, perms: false }
  }
}

/** Checkouts a command names besides its work tree (replay's source repository). */
const namedCheckouts = new Set<string>()

/** No program on the host is ever taken from `folder` (for as long as this process lives). */
export function distrustCheckout(folder: string): void {
  namedCheckouts.add(resolve(folder))
}

/**
 * Where no program run on the host may come from: `folders` (the work tree, git's folders), the
 * folder this process started in, the workflow's checkout (`GITHUB_WORKSPACE`) and the
 * checkouts a command named. A committed `bin/git` there, or one a model edit or validation
 * rewrote, would run as root outside the jail (attack rounds 13, 14 and 15).
 */
export function distrusted(folders: readonly string[]): string[] {
  const started = [process.cwd(), process.env.GITHUB_WORKSPACE ?? '']
  return [...folders, ...started, ...namedCheckouts].filter(Boolean)
}

/**
 * Whether the program (or PATH folder) at `path` may run on the host: absolute, outside every
 * distrusted folder, and named the same in every process: `/proc/self/cwd/bin` is the work
 * tree's `bin` in a child started there, whatever it is in this one.
 */
export function trustedOnHost(path: string, folders: readonly string[]): boolean {
  const processBound = [resolve(path), realPath(path)].some(
    (place) => contains('/proc', place) || contains('/dev', place)
  )
  return isAbsolute(path) && !processBound && outsideOf(path, distrusted(folders))
}

/**
 * The PATH of a program run on the host in the work tree, which starts others by name (git:
 * `ssh`, a credential helper): its trusted entries alone. A relative or empty entry names the
 * work tree itself; never empty, which would too.
 */
export function hostPath(path: string | undefined, folders: readonly string[]): string {
  const entries = (path ?? '').split(delimiter).filter((entry) => trustedOnHost(entry, folders))
  return entries.length > 0 ? entries.join(delimiter) : '/usr/bin:/bin'
}

/**
 * Whether the program at `path` (absolute) lies outside every one of `folders`, as written and
 * with links followed, its folder and itself: a PATH entry through a link into the tree, or a
 * link in the tree to a system program (a command can replace the link), is as much inside.
 */
export function outsideOf(path: string, folders: readonly string[]): boolean {
  const places = folders.flatMap((folder) => [resolve(folder), realPath(folder)])
  return (
    isAbsolute(path) &&
    [resolve(path), realPath(dirname(path)), realPath(path)].every(
      (place) => !places.some((folder) => contains(folder, place))
    )
  )
}

/** `path` with every link on the way followed (as it is where it cannot be). */
function realPath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
