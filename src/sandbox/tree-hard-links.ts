import { execFileSync } from 'node:child_process'
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  copyFileSync,
  lstatSync,
  realpathSync,
  renameSync,
  rmSync,
  utimesSync
} from 'node:fs'
import { dirname, join, relative } from 'node:path'

/** A file's device, inode and number of names (lstat's dev, ino, nlink). */
export interface FileIdentity {
  dev: number
  ino: number
  nlink: number
}

/**
 * Whether `file` is also a file under one of `folders` (its other name a hard link there): a
 * program on the host that is a hard link of a file of the tree is rewritten in place by
 * validation on the tree itself, and git would run the result (attack round 23). Only a file of
 * more than one name on a folder's device is searched for.
 */
export function hardLinkedInto(file: FileIdentity, folders: readonly string[]): boolean {
  if (file.nlink < 2) return false
  return folders.some((folder) => {
    const stat = lstatSync(folder, { throwIfNoEntry: false })
    if (!stat?.isDirectory() || stat.dev !== file.dev) return false
    const linked = multiLinked(folder, `${stat.dev}:${stat.ino}`)
    // A folder find could not search at all: any file of that device may be its.
    return linked === undefined || linked.has(`${file.dev}:${file.ino}`)
  })
}

/** What commands may rewrite in place, searched for files of more than one name. */
export interface LinkSearch {
  /** The files of more than one name found. */
  paths: string[]
  /** A folder find could not list that this user can still search (and so write in). */
  unlisted?: string
}

/**
 * The files of more than one name under `root` (its real path), `pruned` folders left out:
 * hard links a setup step made (`ln`, `cp -l`), pnpm's store, a shared hook. A command that
 * rewrites such a file in place rewrites its other names too, outside the tree perhaps: a
 * program on the host's PATH that later steps (and git's own ssh) run as the runner, or a
 * store a cache carries to other workflows (attack rounds 24 and 25). Every one counts, not
 * only those with a name outside: a folder mounted twice in the tree shows one file twice.
 */
export function multiLinkedIn(root: string, pruned: readonly string[] = []): LinkSearch {
  const real = realpathSync.native(root)
  const inReal = pruned.map((folder) => join(real, relative(root, folder)))
  const prune = inReal.flatMap((folder, i) => [
    ...(i > 0 ? ['-o'] : []),
    '-path',
    globQuoted(folder)
  ])
  const { lines, unreadable } = listMultiLinked(
    real,
    prune.length > 0 ? ['(', ...prune, ')', '-prune', '-o'] : []
  )
  // A folder listed only in part: one this user cannot search is one its commands cannot
  // write in either; one it can (mode 0311) hides names they can still rewrite.
  const open = unreadable.filter((folder) => folder === undefined || may(folder, constants.X_OK))
  return {
    paths: lines.map((line) => line.slice(line.indexOf(' ', line.indexOf(' ') + 1) + 1)),
    ...(open.length > 0 ? { unlisted: open[0] ?? real } : {})
  }
}

/** What separate did: how many files it copied, and the first it could not. */
export interface Separation {
  copied: number
  failed?: string
}

/**
 * Each file a copy of its own, in place of the shared one (same content, mode, owner and
 * times; a rename, so never half there): what a command then writes stays with that name. A
 * file the jail's user (`jail`: this process's) could not write is left: not its owner, who may
 * chmod it (attack round 25: a read-only file the runner owns), nor writable by group or others
 * (the group bits counted whatever the groups, which the jail drops; an ACL's mask shows there).
 */
export function separate(
  paths: readonly string[],
  jail: { uid: number; gid: number } = {
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0
  }
): Separation {
  let copied = 0
  for (const path of paths) {
    const stat = lstatSync(path)
    if (jail.uid !== 0 && stat.uid !== jail.uid && (stat.mode & 0o022) === 0) continue
    // Short: a name near the longest a folder allows leaves no room for a prefix.
    const copy = join(dirname(path), `.patchsmith-${process.pid}-${copied + 1}`)
    try {
      copyFileSync(path, copy, constants.COPYFILE_EXCL)
      const kept = keepOwner(copy, stat)
      // A copy that is not its owner's and group's never keeps set-user or set-group-ID.
      chmodSync(copy, stat.mode & (kept ? 0o7777 : 0o1777))
      utimesSync(copy, stat.atime, stat.mtime)
      renameSync(copy, path)
      copied++
    } catch {
      try {
        rmSync(copy, { force: true })
      } catch {
        // Nothing was made there.
      }
      // Refused only where the jail's user surely could write it: its owner, everyone, or its
      // own group (a group bit of another group, a root folder's build output, is left).
      const surely =
        jail.uid === 0 ||
        stat.uid === jail.uid ||
        (stat.mode & 0o002) !== 0 ||
        (stat.gid === jail.gid && (stat.mode & 0o020) !== 0)
      if (surely) return { copied, failed: path }
    }
  }
  return { copied }
}

/**
 * The copy's owner and group the file's, where this user may give them (root, or a group of
 * its own); elsewhere the copy stays this user's, its group kept where it can be. Whether both
 * were kept.
 */
function keepOwner(copy: string, stat: { uid: number; gid: number }): boolean {
  if (stat.uid === process.getuid?.() && stat.gid === process.getgid?.()) return true
  try {
    chownSync(copy, stat.uid, stat.gid)
    return true
  } catch (error) {
    if (process.getuid?.() === 0) throw error
  }
  try {
    chownSync(copy, -1, stat.gid)
  } catch {
    // This user's own group, then.
  }
  return false
}

/** find's -path pattern matching `path` alone: its own [ * ? \ escaped. */
function globQuoted(path: string): string {
  return path.replace(/[[\]*?\\]/g, '\\$&')
}

/** Whether this user may `mode` (constants.W_OK, X_OK) the file at `path`. */
function may(path: string, mode: number): boolean {
  try {
    accessSync(path, mode)
    return true
  } catch {
    return false
  }
}

/**
 * The files of more than one name under each folder searched (by path and identity): once per
 * process, as a hard link into the tree comes from the host before the run, never from a
 * command in the jail (a link across mounts fails there, EXDEV; a commit cannot hold one).
 */
const searched = new Map<string, Set<string> | undefined>()

function multiLinked(folder: string, identity: string): Set<string> | undefined {
  const key = `${folder}\0${identity}`
  if (!searched.has(key)) {
    const found = safeList(folder)
    searched.set(key, found && new Set(found.lines.map((line) => line.split(' ')[0]!)))
  }
  return searched.get(key)
}

function safeList(folder: string): { lines: string[] } | undefined {
  try {
    return listMultiLinked(folder)
  } catch {
    return undefined
  }
}

/**
 * `device:inode links path` of each file under `folder` with more than one name, in the file
 * systems mounted there too, and the folders find could not read (from its `find: 'PATH': …`
 * lines; undefined for a line naming none). By hand because no library lists files by link
 * count without a stat of each in JS; find reads them in one process. Throws where find could
 * not run.
 */
function listMultiLinked(
  folder: string,
  prune: readonly string[] = []
): { lines: string[]; unreadable: Array<string | undefined> } {
  let out: string
  let errors = ''
  try {
    out = execFileSync(
      'find',
      [folder, ...prune, '-type', 'f', '-links', '+1', '-printf', '%D:%i %n %p\\0'],
      {
        env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024
      }
    )
  } catch (error) {
    const failed = error as { status?: number | null; stdout?: string; stderr?: string }
    if (failed.status !== 1) throw error
    out = failed.stdout ?? ''
    errors = failed.stderr ?? ''
  }
  const unreadable = errors
    .split('\n')
    .filter(Boolean)
    .map((line) => /^find: '(.*)': /.exec(line)?.[1])
  return { lines: out.split('\0').filter(Boolean), unreadable }
}
