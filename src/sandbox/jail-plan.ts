import { existsSync, lstatSync, readdirSync } from 'node:fs'
import { release } from 'node:os'
import { join } from 'node:path'
import type { GitFileCover } from './git-config.js'
import { systemFolders } from './host-view.js'
import { hostSockets } from './host-sockets.js'
import { contains, type SandboxLayout } from './layout.js'

/** One mount of the jail, in order: later ones sit on top of earlier ones. */
export type JailMount =
  | {
      type: 'tmpfs'
      path: string
      /** Bytes. */
      size: number
      mode: string
    }
  | {
      type: 'bind'
      source: string
      path: string
      writable: boolean
      file: boolean
      /** Covers something that may be gone by the time the jail is made (a host socket). */
      ifPresent?: boolean
    }
  /** A folder made in a tmpfs, owned by the command's user (its HOME). */
  | { type: 'dir'; path: string; mode: string }

export interface JailPlan {
  mounts: JailMount[]
  /** Loopback only (a network namespace of its own) unless open. */
  network: 'closed' | 'open'
  /** Most tasks (processes and threads) the command may have at once. */
  maxTasks: number
  /** Variables the command gets on top of its own (toolchain roots, HOME, TMPDIR). */
  env: Record<string, string>
}

interface PlanOptions {
  gitWritable?: boolean
  /** The work tree read-only (git's folders in it still as gitWritable says). */
  treeReadOnly?: boolean
  network?: 'closed' | 'open'
  maxTasks?: number
}

/** Sizes of the private folders: big enough for builds and caches, not for filling the disk. */
const MB = 1024 * 1024
const TEMP_SIZE = 2048 * MB
/** The command's HOME: fresh and empty, in its private /tmp. */
const JAIL_HOME = '/tmp/home'
const SHM_SIZE = 256 * MB
/** Processes and threads at once: a build's, not a fork bomb's. */
const MAX_TASKS = 2048
/** Where procfs can change the host (sysctls, a crash through sysrq, drivers), made read-only. */
export const PROC_COVERS = ['sys', 'sysrq-trigger', 'irq', 'bus', 'fs', 'acpi', 'scsi', 'driver']

/**
 * The jail's mounts, the same for every backend: private /tmp, HOME and /dev/shm; the hidden
 * folders emptied; toolchains shown again read-only; the work tree writable; git's folders
 * read-only with their config sanitized; every host unix socket outside them covered.
 */
export function jailPlan(
  layout: SandboxLayout,
  gitFiles: readonly GitFileCover[],
  options: PlanOptions = {}
): JailPlan {
  const mounts: JailMount[] = [
    { type: 'tmpfs', path: '/tmp', size: TEMP_SIZE, mode: '1777' },
    { type: 'dir', path: JAIL_HOME, mode: '0700' }
  ]
  // The jail's /tmp is its own, but a work tree there is bound back, folders hidden in it too.
  const hidden = layout.hidden.filter(
    (path) => (!contains('/tmp', path) || contains(layout.workTree, path)) && existsSync(path)
  )
  // A hidden file (one at / say: a swap file) is shown as an empty one.
  const emptied = (path: string): JailMount =>
    lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === false
      ? { type: 'bind', source: '/dev/null', path, writable: false, file: true }
      : { type: 'tmpfs', path, size: MB, mode: '0755' }
  // A hidden folder inside the work tree (a log folder) is emptied after the tree is bound.
  const inside = (path: string) => contains(layout.workTree, path)
  for (const path of hidden.filter((path) => !inside(path))) mounts.push(emptied(path))
  mounts.push({ type: 'tmpfs', path: '/dev/shm', size: SHM_SIZE, mode: '1777' })
  const inJail = (path: string) =>
    !contains('/tmp', path) && !hidden.some((folder) => contains(folder, path))
  const bind = (source: string, path: string, writable: boolean) => {
    const stat = lstatSync(source, { throwIfNoEntry: false })
    if (stat) mounts.push({ type: 'bind', source, path, writable, file: !stat.isDirectory() })
  }
  for (const path of layout.revealed ?? []) bind(path, path, false)
  bind(layout.workTree, layout.workTree, !options.treeReadOnly)
  for (const path of hidden.filter(inside)) mounts.push(emptied(path))
  // Around the work tree, another repository's .git is shown read-only only where it is seen.
  const enclosing = layout.enclosingGitDirs ?? []
  const seen = (path: string) => inJail(path) || mounted(mounts, path)
  for (const path of enclosing.filter(seen)) bind(path, path, false)
  // Outer ones first: a linked worktree's folder inside the common one's `worktrees/` stays a
  // mount point of its own over it (one a hook cannot move aside for a link).
  const own = layout.gitDirs
    .filter((path) => !enclosing.includes(path))
    .sort((a, b) => a.length - b.length)
  for (const path of own)
    if (!options.gitWritable) bind(path, path, false)
    // Bound writable wherever it lies (a linked worktree's common folder, a separate git dir):
    // in the work tree, again, so that on an overlay of it, or with the tree read-only, git's
    // own writes still go through (the hooked commit).
    else {
      bind(path, path, true)
      // Its object store stays read-only: git writes the commit to a quarantine (see
      // ObjectQuarantine), so no hook can rewrite, shadow or pack over an object of the
      // repository, nor move the store aside (a mount point cannot be renamed).
      if (lstatSync(join(path, 'objects'), { throwIfNoEntry: false })?.isDirectory())
        bind(join(path, 'objects'), join(path, 'objects'), false)
    }
  const visible = (path: string) =>
    layout.gitDirs.some((dir) => contains(dir, path)) || !contains(layout.workTree, path)
  for (const cover of gitFiles) {
    if (!existsSync(cover.path) || !visible(cover.path)) continue
    if (!seen(cover.path)) continue
    bind(cover.source ?? '/dev/null', cover.path, false)
  }
  // A socket's process may end (and its file go) before the jail is made: covered if still there.
  for (const socket of hostSockets(shownTrees(layout), [layout.workTree, ...layout.gitDirs]))
    if (seen(socket)) mounts.push(socketCover(socket))
  return {
    mounts,
    network: options.network ?? 'closed',
    maxTasks: options.maxTasks ?? MAX_TASKS,
    env: { ...layout.toolchainEnv, HOME: JAIL_HOME, TMPDIR: '/tmp' }
  }
}

/** Where host files reach the jail: the system folders, toolchains, the work tree, git's folders. */
function shownTrees(layout: SandboxLayout): string[] {
  const trees = [
    ...new Set([...systemFolders(), ...(layout.revealed ?? []), layout.workTree, ...layout.gitDirs])
  ]
  // Each searched once: a git folder inside the work tree is searched with it.
  return trees.filter((tree) => !trees.some((outer) => outer !== tree && contains(outer, tree)))
}

/** `path` is shown again inside a hidden folder by one of the binds. */
function mounted(mounts: JailMount[], path: string): boolean {
  return mounts.some((mount) => mount.type === 'bind' && contains(mount.path, path))
}

/** An empty file over a host socket, made only if the socket's file is still there. */
export function socketCover(path: string): JailMount {
  return { type: 'bind', source: '/dev/null', path, writable: false, file: true, ifPresent: true }
}

/** Tasks (processes and threads) `uid` has now: RLIMIT_NPROC counts them all, jailed or not. */
export function tasksOf(uid: number): number {
  let count = 0
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (lstatSync(`/proc/${name}`).uid !== uid) continue
      count += readdirSync(`/proc/${name}/task`).length
    } catch {
      // gone meanwhile
    }
  }
  return count
}

/** Linux 6.14 gave each PID namespace its own pid_max: a task limit that holds for root too. */
export function pidMaxPerNamespace(): boolean {
  const [major = 0, minor = 0] = release().split('.').map(Number)
  return major > 6 || (major === 6 && minor >= 14)
}
