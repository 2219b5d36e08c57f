import { lstatSync } from 'node:fs'
import { pidMaxPerNamespace, type JailPlan } from './jail-plan.js'

export interface SpawnSpec {
  file: string
  args: string[]
  env: Record<string, string>
  /**
   * Host paths the jail covers that may go before it is made (host sockets): one gone between
   * the plan and the mount makes bubblewrap fail before the command starts (startRaced).
   */
  covers?: readonly string[]
}

/** Jails made for one command at most: another only while the last failed to start by a race. */
const JAIL_STARTS = 3

/**
 * True when a jail made from `spec` failed before its command started because a host socket it
 * covers went in the meantime: bubblewrap could not make the cover's mount point, and its own
 * error is all that was printed (unshare's jail checks each socket as it mounts). The command
 * never ran: running it again from a fresh spec is safe. A command can bring it about only by
 * moving a host socket's folder in the work tree and failing as bubblewrap would: its own command
 * then runs again, at most JAIL_STARTS times, and the fresh plan covers the socket where it went.
 */
export function startRaced(
  spec: SpawnSpec,
  exitCode: number | null,
  stdout: string,
  stderr: string
): boolean {
  if (exitCode === 0 || stdout !== '' || !spec.covers?.length) return false
  if (!stderr.startsWith('bwrap: ')) return false
  return spec.covers.some((path) => !lstatSync(path, { throwIfNoEntry: false }))
}

/**
 * `start`'s result, `start` made again from a fresh spec while its jail failed to start by a
 * race (startRaced), at most JAIL_STARTS times in all.
 */
export async function startedInJail<T>(
  start: () => Promise<{ result: T; raced: boolean }>
): Promise<T> {
  for (let tries = 1; ; tries++) {
    const { result, raced } = await start()
    if (!raced || tries === JAIL_STARTS) return result
  }
}

export interface Programs {
  bwrap?: string
  unshare?: string
  sudo?: string
  setpriv?: string
  prlimit?: string
  mount?: string
  umount?: string
  ip?: string
  /** The unshare backends' seccomp loader (attribute-filter.ts), and `env` to start it bare. */
  perl?: string
  env?: string
  /** For the overlay's listing (overlay.ts). */
  find?: string
  /** To read the repository's config files for their covers (git-config.ts). */
  git?: string
  /** What this bubblewrap understands (`--size`, `--perms` came with later versions). */
  bwrapOptions?: { size: boolean; perms: boolean }
}

/** Who runs the command, and how many tasks that user already has (RLIMIT_NPROC counts them). */
export interface Caller {
  uid: number
  gid: number
  /** Unused since supplementary groups are dropped (the docker group); kept for callers. */
  groups?: number[]
  /** Tasks the user has outside the jail, added to the jail's allowance. */
  tasks?: number
}

/**
 * What a command run as root keeps: writing files of other owners in the work tree (a container
 * job's workspace belongs to the runner's user). Not mount, ptrace, setuid or
 * dac_read_search (open_by_handle_at reaches past the mounts).
 */
export const ROOT_KEEPS = ['dac_override', 'fowner', 'chown'] as const

/** The capability bounding set a root command keeps (none for any other user). */
export function bounding(root: boolean): string {
  return `--bounding-set=-all${root ? ROOT_KEEPS.map((cap) => `,+${cap}`).join('') : ''}`
}

/**
 * As root, RLIMIT_NPROC never applies (the kernel exempts uid 0 whatever its capabilities):
 * there the limit is the PID namespace's own pid_max (Linux 6.14 and later), written while
 * the jail is still being built. Elsewhere: RLIMIT_NPROC through prlimit.
 */
export function taskLimit(root: boolean): 'pid-namespace' | 'rlimit' | 'none' {
  if (!root) return 'rlimit'
  return pidMaxPerNamespace() ? 'pid-namespace' : 'none'
}

/** The PID namespace's pid_max to write as root before the command, where it holds the limit. */
export function namespacePidMax(plan: JailPlan, root: boolean): number | undefined {
  // The kernel refuses a pid_max under 301.
  return root && taskLimit(true) === 'pid-namespace' ? Math.max(301, plan.maxTasks) : undefined
}

/** Shell lines, run with root's powers inside the jail's namespaces: /proc's writable parts. */
export function procLines(
  plan: JailPlan,
  root: boolean,
  mount: string,
  names: readonly string[]
): string[] {
  const lines: string[] = []
  const pidMax = namespacePidMax(plan, root)
  if (pidMax) lines.push(`echo ${pidMax} > /proc/sys/kernel/pid_max`)
  // One mount(8) each: it binds and remounts read-only in one go (each exec costs).
  for (const name of names) {
    const path = shellQuote(`/proc/${name}`)
    lines.push(`if [ -e ${path} ]; then ${mount} -o bind,ro ${path} ${path}; fi`)
  }
  return lines
}

/**
 * `prlimit --nproc` before the command: the limit for any other user than root (for root, where
 * the PID namespace holds it, the exec is saved; elsewhere it is at least shown).
 */
export function limitPrefix(programs: Programs, plan: JailPlan, caller: Caller): string[] {
  if (!programs.prlimit || (caller.uid === 0 && taskLimit(true) === 'pid-namespace')) return []
  const tasks = plan.maxTasks + (caller.uid === 0 ? 0 : (caller.tasks ?? 0))
  return [programs.prlimit, `--nproc=${tasks}:${tasks}`, '--']
}

/** The exit code of a jail that stopped before its command: nothing ran. */
export const JAIL_SETUP_FAILED = 125

/** One shell word, single-quoted. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
