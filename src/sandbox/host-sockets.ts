import { execFileSync } from 'node:child_process'
import {
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  type Stats
} from 'node:fs'
import { PatchsmithError } from '../contract/index.js'
import { mountTable, sharedParts } from './host-mounts.js'
import { contains } from './layout.js'

/**
 * Unix sockets of this host in the trees the jail shows, where they exist as files: a socket on
 * a read-only mount still connects, so each is covered by an empty file.
 *
 * /proc/net/unix names a socket by the path given to bind(2) only. One bound by a relative
 * path, renamed or linked away (a second socket bound at its old path then), or given a second
 * (hard) link connects by a name no list holds, so while any socket is like that the shown trees
 * themselves are searched for sockets (`find -type s`, names from directory entries, no stat of
 * each file), anew for every jail: such a socket may move between two jails from a folder no
 * search covers into one searched before. So is a socket in a tree commands can write (another
 * socket may have been left at its path). While every listed socket is named where it is, only
 * what a process no list covers (another mount namespace's) can bind in is searched: trees on a
 * mount other than the root one, folders mounted inside them; and everything where procfs hides
 * other users' processes. Those searches are kept until a mount is made or taken away in or over
 * the tree, or a socket found is no longer where it was. A socket bound by its absolute path
 * after the search is named by the lists, read for every jail, and covered where it really is; a
 * socket mounted onto a file (a container's `-v daemon.sock:…`) is found among the mount points,
 * also for every jail.
 */
export function hostSockets(
  shownTrees: readonly string[] = [],
  writable: readonly string[] = []
): string[] {
  const listed = listedSockets()
  // In a tree commands can write, a listed socket's file can be moved away and another socket
  // left at its path (a dead one, from a command): that path names nothing for sure.
  const replaceable = (socket: ListedSocket) =>
    socket.where.some((path) => writable.some((tree) => contains(tree, path)))
  const unnamed = new Set(
    listed.filter((socket) => !socket.named || replaceable(socket)).map((socket) => socket.inode)
  )
  const mounts = mountTable()
  // A socket not named where it is may be anywhere, and move between two jails from a folder no
  // search covers into one searched before: while there is one, every tree is searched anew.
  if (unnamed.size > 0) found.clear()
  // A mount made or taken away since brings what no earlier search saw, in the trees it lies in
  // or over; elsewhere (a disk mounted for another job in /tmp) a search still holds.
  const moved = changedPoints(searchedMounts, mounts.mounts)
  searchedMounts = new Set(mounts.mounts)
  for (const tree of found.keys())
    if (moved.some((point) => contains(tree, point) || contains(point, tree))) found.delete(tree)
  const paths = new Set(listed.flatMap((socket) => socket.where))
  for (const point of mounts.points) if (statOf(point)?.isSocket()) paths.add(point)
  // Every socket the lists hold named where it is, and every process's list read: only what
  // another mount namespace can bind in is searched.
  const complete = unnamed.size === 0 && !mounts.processesHidden
  // A socket found that is gone from its place, or another file in its place, was moved (a
  // folder renamed by a command in the work tree, a dead socket left at its old path): it may be
  // in any tree now.
  if ([...found.values()].some((files) => [...files].some(([file, id]) => socketId(file) !== id)))
    found.clear()
  for (const tree of complete ? sharedParts(shownTrees, mounts.points) : shownTrees) {
    let files = found.get(tree)
    if (!files)
      found.set(
        tree,
        (files = new Map(socketFilesIn(tree, writable).map((file) => [file, socketId(file)])))
      )
    for (const file of files.keys()) paths.add(file)
  }
  return [...paths]
}

/** Linux's longest path, its NUL included. */
const PATH_MAX = 4096
/**
 * The longest a path may be for every backend to cover it: bubblewrap mounts each path under its
 * new root (`/newroot`, 8 bytes more), so it fails on one within 8 bytes of PATH_MAX.
 */
const LONGEST_COVERED = PATH_MAX - '/newroot'.length - 1

/**
 * Socket files found in each shown tree (with the device and inode each had), and the unnamed
 * sockets there were when searched.
 */
const found = new Map<string, Map<string, string | undefined>>()
let searchedMounts = new Set<string>()

/** The points of the mounts (`id point`) in one table and not the other. */
function changedPoints(before: ReadonlySet<string>, now: readonly string[]): string[] {
  const after = new Set(now)
  const point = (mount: string) => mount.slice(mount.indexOf(' ') + 1)
  return [
    ...[...before].filter((mount) => !after.has(mount)),
    ...now.filter((mount) => !before.has(mount))
  ].map(point)
}

interface ListedSocket {
  /** The socket's own inode (not its file's), as /proc/net/unix gives it. */
  inode: string
  /** Where its file is now, by the path the list gives: that path and its real one. */
  where: string[]
  /** Reachable by `where` alone: absolute, a socket file there, no link on the way, one link. */
  named: boolean
  /** The path the list gives. */
  path: string
  /** An accepted connection (state 03): the list prints its listener's path. */
  connected: boolean
}

/** Sockets with a file name (bound, not abstract) in the lists of every network namespace. */
function listedSockets(): ListedSocket[] {
  const sockets: ListedSocket[] = []
  for (const text of unixSocketLists())
    for (const entry of unixSocketEntries(text)) {
      const fields = entry.trim().split(/\s+/)
      // The path is all after the seventh field, spaces and newlines in it kept.
      const head = /^\s*(?:\S+[ \t]+){7}/.exec(entry)
      const path = head ? entry.slice(head[0].length).replace(/[ \t]+$/, '') : ''
      if (path === '' || path.startsWith('@')) continue
      const stat = path.startsWith('/') ? statOf(path) : undefined
      const real = stat?.isSocket() ? realPath(path) : undefined
      const where = real ? [...new Set([path, real])] : []
      const named = real === path && stat!.nlink === 1 && !path.includes('\n')
      sockets.push({ inode: fields[6] ?? '', where, named, path, connected: fields[5] === '03' })
    }
  // Two sockets bound at one path (the first one's file renamed or linked away, a second bound
  // there): the file is the second's, the first is elsewhere. An accepted connection, printed with
  // its listener's path, is reached by no path.
  const bound = new Map<string, Set<string>>()
  for (const socket of sockets.filter((socket) => !socket.connected))
    bound.set(socket.path, (bound.get(socket.path) ?? new Set()).add(socket.inode))
  for (const socket of sockets) if ((bound.get(socket.path)?.size ?? 0) > 1) socket.named = false
  return sockets
}

/**
 * The list's entries, one a line but for a path with a newline in it: the kernel prints it as
 * it is, so a line that does not start with an entry's number goes on the entry before. Every
 * entry ends with a newline of its own, the last one too: that one is no part of its path (taken
 * for one, the last socket was never where it said, and every jail searched the shown trees).
 */
export function unixSocketEntries(text: string): string[] {
  const found: string[] = []
  for (const line of text.replace(/\n$/, '').split('\n').slice(1)) {
    if (/^\s*[0-9a-f]+: /i.test(line) || found.length === 0) found.push(line)
    else found[found.length - 1] += `\n${line}`
  }
  return found
}

/**
 * Every socket file under `tree`, never following a link, mounts inside it included (the jail's
 * binds are recursive). By hand because no library lists files by type without a stat of each;
 * find reads the type from the directory entry. A name the jail's mount cannot be given (not
 * UTF-8, past PATH_MAX) stops the jail rather than leave that socket open, and so does a folder
 * it could not read in a tree commands can write (`writable`).
 */
function socketFilesIn(tree: string, writable: readonly string[]): string[] {
  let out: Buffer
  try {
    out = execFileSync('find', [tree, '-type', 's', '-print0'], {
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024
    })
  } catch (error) {
    // Exit status 1: a folder it could not read. Elsewhere the command, run as this user, cannot
    // read it either, and what find printed holds; where commands write, a command closed it
    // (`chmod 000`) and can open it again.
    const failed = error as { status?: number | null; stdout?: Buffer; stderr?: Buffer }
    if (failed.status !== 1 || !failed.stdout) throw error
    const closed = unreadInWritable(String(failed.stderr ?? ''), writable)
    if (closed !== undefined)
      throw new PatchsmithError(
        'ENVIRONMENT_ERROR',
        `A folder where validation commands write cannot be read by this user (${closed}), so the host sockets it may hold cannot be covered; no command runs. Make it readable to the runner's user (a command may have closed it with chmod).`,
        { path: closed }
      )
    out = failed.stdout
  }
  const files: string[] = []
  for (let start = 0; start < out.length;) {
    const end = out.indexOf(0, start)
    const bytes = out.subarray(start, end < 0 ? out.length : end)
    start = end < 0 ? out.length : end + 1
    const path = bytes.toString('utf8')
    // Past PATH_MAX no mount (nor lstat) can name it, and a command can still reach it folder by
    // folder: a command that moved a host socket's folder that deep stops the jail; so does one
    // short of it that a backend's mount cannot name (else bubblewrap fails to start, and the
    // command that failed is blamed).
    if (bytes.length > LONGEST_COVERED)
      throw new PatchsmithError(
        'ENVIRONMENT_ERROR',
        `A unix socket whose path is too long for the jail to cover (${bytes.length} bytes; at most ${LONGEST_COVERED}; under ${bytes.subarray(0, 200).toString('utf8')}…) is where validation commands can see it, so no command runs. Move or remove that socket (or the folders above it).`,
        { path: bytes.subarray(0, 200).toString('utf8') }
      )
    if (!Buffer.from(path, 'utf8').equals(bytes))
      throw new PatchsmithError(
        'ENVIRONMENT_ERROR',
        `A unix socket whose name is not UTF-8 (${JSON.stringify(bytes.toString('latin1'))}) is where validation commands can see it; the jail cannot cover it, so no command runs. Rename or remove that socket.`,
        { path: bytes.toString('latin1') }
      )
    // Listed from its folder's entries, yet not to be looked at (a folder above it readable but
    // not searchable, chmod 600): no cover can be mounted there, and a command that can chmod
    // the folder back reaches it.
    if (unsearchable(path))
      throw new PatchsmithError(
        'ENVIRONMENT_ERROR',
        `A folder where validation commands can see a unix socket (${path}) cannot be searched by this user, so the jail cannot cover the socket; no command runs. Make the folder searchable by the runner's user (a command may have closed it with chmod), or remove the socket.`,
        { path }
      )
    files.push(path)
  }
  return files
}

function unsearchable(path: string): boolean {
  try {
    lstatSync(path)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES'
  }
}

/**
 * The first folder find could not read that a command could open again, in a tree commands can
 * write: this user's own (the command runs as this user), or one whose owner cannot be told (a
 * folder above it closed); from find's error lines (`find: 'PATH': …`), a line it cannot read a
 * path from counting as one.
 */
function unreadInWritable(stderr: string, writable: readonly string[]): string | undefined {
  for (const line of stderr.split('\n').filter(Boolean)) {
    const path = /^find: '([^']*)': /.exec(line)?.[1]
    if (path === undefined) return line.slice(0, 200)
    const owner = statOf(path)?.uid
    const openable = owner === undefined || owner === process.getuid?.()
    if (openable && writable.some((tree) => contains(tree, path))) return path
  }
  return undefined
}

/**
 * The entry at `path`, or none where it cannot be seen: a folder on the way this user cannot
 * enter (another's socket in a 0700 folder) is closed to the command as well, which runs as
 * this user.
 */
function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** Which socket file is at `path` (device and inode), none where no socket is. */
function socketId(path: string): string | undefined {
  const stat = statOf(path)
  return stat?.isSocket() ? `${stat.dev}:${stat.ino}` : undefined
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/** The text of /proc/net/unix of each network namespace a process on this host is in. */
function unixSocketLists(): string[] {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8')
    } catch {
      return undefined
    }
  }
  const namespaces = new Set<string>()
  const texts = new Set<string>()
  const own = read('/proc/net/unix')
  if (own !== undefined) texts.add(own)
  namespaces.add(namespaceOf('self') ?? 'self')
  let pids: string[] = []
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return [...texts]
  }
  for (const pid of pids) {
    // Where the namespace cannot be named (another user's process), its list is read anyway.
    const namespace = namespaceOf(pid)
    if (namespace !== undefined && namespaces.has(namespace)) continue
    if (namespace !== undefined) namespaces.add(namespace)
    const text = read(`/proc/${pid}/net/unix`)
    if (text !== undefined) texts.add(text)
  }
  return [...texts]
}

function namespaceOf(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`)
  } catch {
    return undefined
  }
}
