import { execFileSync } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { findInPath } from '@actions/io'
import { HOST_ENV } from './environment.js'
import type { Programs } from './jail-command.js'
import { hostJudge } from './host-trust.js'

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
  const trusts = hostJudge(writable)
  const find = async (name: string) => (await findInPath(name)).find(trusts)
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

/**
 * What `bwrap --help` offers, asked once per program file (path and identity: a replaced or
 * rewritten file is asked again), not at every jail of a process that runs many.
 */
function bwrapOptions(bwrap: string): Programs['bwrapOptions'] {
  const stat = statSync(bwrap, { throwIfNoEntry: false, bigint: true })
  const key = `${bwrap}\0${stat?.dev}:${stat?.ino}:${stat?.size}:${stat?.mtimeNs}:${stat?.ctimeNs}`
  if (!offered.has(key)) offered.set(key, askBwrap(bwrap))
  return offered.get(key)
}

const offered = new Map<string, Programs['bwrapOptions']>()

function askBwrap(bwrap: string): Programs['bwrapOptions'] {
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

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
