import {
  existsSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statfsSync,
  statSync
} from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path'
import { contains } from './layout.js'
import { ownMounts, placeInFileSystem } from './mount-sources.js'
import { hardLinkedInto, type FileIdentity } from './tree-hard-links.js'

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
 * rewrote, would run as root outside the jail (attack rounds 13 to 16).
 */
export function distrusted(folders: readonly string[]): string[] {
  const started = [process.cwd(), process.env.GITHUB_WORKSPACE ?? '']
  // The root holds every program: a run started there distrusts its own folders only.
  return [...folders, ...started, ...namedCheckouts].filter((folder) => folder && folder !== '/')
}

/** Folders where every process sees something of its own: `/proc/self`, `/dev/fd`. */
const PER_PROCESS = ['/proc', '/dev']

/**
 * Whether the program (or PATH folder) at `path` may run on the host. Followed link by link,
 * nothing on the way may lie in a distrusted folder, by its path or by its device and inode (a
 * bind mount of the tree elsewhere): not the folders passed through, not a link (whoever can
 * write its folder can point it elsewhere later: `/opt/x -> <tree>/tools -> /usr/bin`), not the
 * end, nor where a bind mount shows one of their folders. Nor on a procfs (`/proc/self/cwd/bin`
 * is the work tree's `bin` in a child started there), and the whole way must exist now.
 */
export function trustedOnHost(path: string, folders: readonly string[]): boolean {
  return hostJudge(folders)(path)
}

/**
 * trustedOnHost for many paths against one set of folders: the folders, their identities and
 * the mount table are read once (a PATH is judged entry by entry, with the programs in them).
 */
export function hostJudge(folders: readonly string[]): (path: string) => boolean {
  const untrusted = distrusted(folders)
  const named = [...PER_PROCESS, ...untrusted.flatMap((folder) => [resolve(folder), real(folder)])]
  const identities = new Set(untrusted.map(identity).filter(Boolean))
  const mounts = ownMounts()
  const physical = untrusted.map(real)
  // A file system mounted inside the tree (a volume at <tree>/tools) is the tree's wherever
  // else it is mounted too (attack round 23).
  const mountedInside = mounts.filter((mount) =>
    physical.some((folder) => contains(folder, mount.point))
  )
  const untrustedPlaces = [
    ...physical.map((folder) => placeInFileSystem(folder, mounts)),
    ...mountedInside.map((mount) => ({ device: mount.device, within: mount.root }))
  ]
  // What commands write in place: the tree itself, and file systems mounted in it.
  const treeFolders = [
    ...folders.map(real),
    ...mountedInside
      .filter((mount) => folders.some((folder) => contains(real(folder), mount.point)))
      .map((mount) => mount.point)
  ]
  // A bind mount of one of the tree's folders elsewhere (attack round 17), judged in the file
  // system itself: also where the tree is reached through a bind mount (round 22).
  const boundInside = (path: string) => {
    const at = placeInFileSystem(path, mounts)
    return untrustedPlaces.some(
      (folder) => folder && at?.device === folder.device && contains(folder.within, at.within)
    )
  }
  return (path) => {
    if (!isAbsolute(path)) return false
    const places = safely(() => placesOf(path))
    if (!places) return false
    return places.every(
      (place) =>
        !named.some((folder) => contains(folder, place.path)) &&
        !(place.identity && identities.has(place.identity)) &&
        !(place.kind !== 'link' && boundInside(place.path)) &&
        !(place.file && hardLinkedInto(place.file, treeFolders))
    )
  }
}

/**
 * The PATH of a program run on the host in the work tree, which starts others by name (git:
 * `ssh`, a credential helper): its trusted entries alone. A relative or empty entry names the
 * work tree itself; never empty, which would too.
 */
export function hostPath(path: string | undefined, folders: readonly string[]): string {
  // Once per PATH and folders: what validation writes lies in those folders, so it can neither
  // make an entry trusted nor one judged trusted lead there (every link on its way is outside).
  const key = `${path ?? ''}\0${distrusted(folders).join('\0')}`
  let trusted = hostPaths.get(key)
  if (trusted === undefined) {
    const trusts = hostJudge(folders)
    const entries = (path ?? '')
      .split(delimiter)
      .filter((entry) => trusts(entry) && startedByNameTrusted(entry, trusts))
    trusted = entries.length > 0 ? entries.join(delimiter) : '/usr/bin:/bin'
    hostPaths.set(key, trusted)
  }
  return trusted
}

const hostPaths = new Map<string, string>()

/** What git starts by name from its PATH: ssh, and `git-<name>` (credential and remote helpers). */
const STARTED_BY_NAME = /^(ssh|git-.+)$/

/**
 * Whether every program git may start by name from `folder` is trusted itself: a trusted folder
 * can hold a link into the tree (`/usr/local/bin/ssh -> <tree>/tools/ssh`, a setup step's), whose
 * end validation can rewrite (attack round 22). Such a folder is left out of git's PATH whole.
 */
function startedByNameTrusted(folder: string, trusts: (path: string) => boolean): boolean {
  const names = safely(() => readdirSync(folder)) ?? []
  return names
    .filter((name) => STARTED_BY_NAME.test(name))
    .every((name) => trusts(join(folder, name)))
}

/** Whether `path` (absolute) lies in a distrusted folder, as written or with links followed. */
function inDistrusted(path: string, folders: readonly string[]): boolean {
  const untrusted = distrusted(folders).flatMap((folder) => [resolve(folder), real(folder)])
  return untrusted.some((folder) => contains(folder, resolve(path)) || contains(folder, real(path)))
}

/**
 * A value of one of git's variables or config keys that name a program (`GIT_SSH_COMMAND`,
 * `GIT_ASKPASS`, `core.sshCommand` …), by the same rule: no shell syntax (`cd tools && ./ssh`),
 * its program (the first word) a trusted path, or a name whose program on hostPath, where the
 * shell finds it, is trusted (not a link into the tree: round 23), and no argument naming a file
 * in the work tree (`ssh -F <tree>/ssh_config`, `sh <tree>/x`, `sh x`: relative to it), relative
 * to it (`-F ./cfg`) or an untrusted program on hostPath (`env deploy-ssh`).
 */
export function trustedProgramValue(value: string, folders: readonly string[]): boolean {
  if (/[^\w ./:=@+,~-]/.test(value)) return false
  const [program = '', ...args] = value.trim().split(/ +/)
  // `PATH=tools ssh`, `LD_LIBRARY_PATH=…`: a variable set for the program (attack round 23).
  if (program.includes('=')) return false
  if (program.includes('/') ? !trustedOnHost(program, folders) : !trustedByName(program, folders))
    return false
  return args.every((word) => {
    // Each part of a value (`PATH=x:tools`): an empty one names the working folder, the tree.
    const parts = word.slice(word.indexOf('=') + 1).split(':')
    if (parts.length > 1 && parts.includes('')) return false
    return parts.every((part) => {
      const named = part.replace(/^~\//, `${homedir()}/`)
      if (named.includes('/')) return isAbsolute(named) && !inDistrusted(named, folders)
      const inTree = distrusted(folders).some((folder) => existsSync(join(folder, named)))
      return !inTree && trustedByName(named, folders)
    })
  })
}

/**
 * A bare name: trusted where the first entry of that name on hostPath is, or none is there. A
 * link counts even where it leads nowhere yet (into the tree, filled by validation later).
 */
function trustedByName(name: string, folders: readonly string[]): boolean {
  if (name === '' || name === '.' || name === '..') return true
  for (const entry of hostPath(process.env.PATH, folders).split(delimiter)) {
    const path = join(entry, name)
    const stat = safely(() => lstatSync(path, { throwIfNoEntry: false }))
    if (stat && !stat.isDirectory()) return trustedOnHost(path, folders)
  }
  return true
}

interface Place {
  path: string
  kind: 'link' | 'folder' | 'file'
  /** A folder's device and inode. */
  identity?: string
  /** A file's. */
  file?: FileIdentity
}

/** statfs(2)'s type of a procfs. */
const PROC_SUPER_MAGIC = 0x9fa0

/** Most links one path may go through (Linux's own bound). */
const MOST_LINKS = 40

/**
 * Every folder, link and end `path` goes through when resolved, in order; undefined where a part
 * is missing or the links do not end. By hand: realpath tells where a path ends, not which
 * links it went through.
 */
function placesOf(path: string): Place[] | undefined {
  const places: Place[] = []
  // Not resolve(path): `lnk/..` is the folder above where the link leads, not `.`.
  let pending = path.split('/').filter(Boolean)
  let current = '/'
  let links = 0
  while (pending.length > 0) {
    const name = pending.shift()!
    if (name === '.') continue
    if (name === '..') {
      current = dirname(current)
      continue
    }
    const next = join(current, name)
    const stat = lstatSync(next, { throwIfNoEntry: false })
    if (!stat) return undefined
    if (stat.isSymbolicLink()) {
      if (++links > MOST_LINKS) return undefined
      places.push({ path: next, kind: 'link' })
      const target = readlinkSync(next)
      if (isAbsolute(target)) current = '/'
      pending = [...target.split('/').filter(Boolean), ...pending]
      continue
    }
    current = next
    if (!stat.isDirectory()) places.push({ path: next, kind: 'file', file: stat })
    // A procfs mounted anywhere: `self/cwd` there is the work tree in a child started in it.
    else if (statfsSync(next).type === PROC_SUPER_MAGIC) return undefined
    else places.push({ path: next, kind: 'folder', identity: `${stat.dev}:${stat.ino}` })
  }
  return places
}

function identity(folder: string): string {
  const stat = safely(() => statSync(folder, { throwIfNoEntry: false }))
  return stat?.isDirectory() ? `${stat.dev}:${stat.ino}` : ''
}

/** What `read` gives, or undefined where it fails (a folder this user may not enter: EACCES). */
function safely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

function real(path: string): string {
  return safely(() => realpathSync.native(path)) ?? path
}
