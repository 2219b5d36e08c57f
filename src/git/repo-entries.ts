import { createHash } from 'node:crypto'
import { accessSync, constants, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { basename, join } from 'node:path'

/** One watched entry as it was, enough to put it back. */
export interface Entry {
  hash: string
  mode: number
  content?: Buffer
  link?: string
  /** Not a file but a fact about one (the index's gitlinks, the entry limit): never restored. */
  fact?: boolean
}

/** A watched file past this is known by its stat alone (and never put back from a copy). */
const MOST_KEPT_BYTES = 64 * 1024 * 1024
/** Bytes kept of all files of one listing: past it, every further file is known by its stat. */
const MOST_KEPT_IN_ALL = 256 * 1024 * 1024

/** One listing under way: its entries, the repository's own git folders, what is left to keep. */
export interface Walk {
  entries: Map<string, Entry>
  own: ReadonlySet<string>
  limit: number
  keptLeft: number
}

export function newWalk(own: ReadonlySet<string>, limit: number, kept = MOST_KEPT_IN_ALL): Walk {
  return { entries: new Map(), own, limit, keptLeft: kept }
}

/**
 * `path` and all it holds (never through a link) into the walk's entries, up to its limit. Never
 * throws: what cannot be read (a file or folder a command closed, one past what node reads) is
 * known by its stat, its ctime included, which no command can set back.
 */
export function walk(path: string, into: Walk, inModules = false): void {
  const { entries, own } = into
  if (entries.size >= into.limit) {
    entries.set(`${path} (too many entries)`, { hash: 'limit', mode: 0, fact: true })
    return
  }
  const stat = readable(() => lstatSync(path))
  if (!stat) return
  const kind = stat.mode.toString(8)
  const mode = stat.mode
  if (stat.isSymbolicLink()) {
    const link = readable(() => readlinkSync(path)) ?? ''
    entries.set(path, { hash: `link ${kind} ${link}`, mode, link })
  } else if (stat.isDirectory()) {
    // One a command closed (chmod 000, or 0400: listed, nothing in it reachable) is a change of
    // its own; what it held reads as gone.
    const searchable = readable(() => (accessSync(path, constants.X_OK), true)) === true
    const names = readable(() => readdirSync(path).sort())
    const open = names && searchable
    entries.set(path, { hash: `dir ${kind}${open ? '' : ' unreadable'}`, mode })
    // A submodule's git folder (under .git/modules, or a gitlink's own .git): its objects and
    // LFS store are data, its objects/info is watched; its reflogs are watched as ours are (a
    // link put in place of one would have a later git there append through it).
    const modules = inModules || basename(path) === 'modules' || basename(path) === '.git'
    for (const name of open ? names : []) {
      const child = join(path, name)
      if (own.has(child)) continue
      // Data by its hash, as large as what it holds (Git LFS's store and scratch; a submodule's
      // objects and LFS store): the entry itself watched (a link in its place), not within.
      const data =
        (basename(path) === 'lfs' && (name === 'objects' || name === 'tmp')) ||
        (modules && name === 'lfs') ||
        (modules && basename(path) === 'objects' && name !== 'info')
      if (data) shallow(child, entries)
      else walk(child, into, modules)
    }
  } else if (stat.isFile()) {
    // Its link count too: a second name given to it (COMMIT_EDITMSG linked to a hook) is a
    // change, since a write to one is a write to the other.
    const keep = stat.size <= MOST_KEPT_BYTES && stat.size <= into.keptLeft
    const content = keep ? readable(() => readFileSync(path)) : undefined
    if (!content) {
      const known = `${stat.nlink} ${stat.size} ${stat.mtimeMs} ${stat.ctimeMs} ${stat.ino}`
      entries.set(path, { hash: `file ${kind} ${known} unread`, mode })
      return
    }
    into.keptLeft -= content.length
    const digest = createHash('sha256').update(content).digest('hex')
    entries.set(path, { hash: `file ${kind} ${stat.nlink} ${digest}`, mode, content })
  } else {
    entries.set(path, { hash: `other ${kind}`, mode })
  }
}

/**
 * The entry at `path` by its kind alone, not what it holds: a link or a file put in a folder's
 * place shows (and is taken away by the put-back, which makes the folder again, empty).
 */
function shallow(path: string, entries: Map<string, Entry>): void {
  const stat = readable(() => lstatSync(path))
  if (!stat) return
  const kind = stat.mode.toString(8)
  if (stat.isSymbolicLink()) {
    const link = readable(() => readlinkSync(path)) ?? ''
    entries.set(path, { hash: `link ${kind} ${link}`, mode: stat.mode, link })
  } else if (stat.isDirectory()) entries.set(path, { hash: `dir ${kind} shallow`, mode: stat.mode })
  else entries.set(path, { hash: `other ${kind}`, mode: stat.mode })
}

/** What `read` returns, or undefined where it fails (a file or folder that cannot be read). */
export function readable<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
