import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
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

/** `path` and all it holds (never through a link) into `entries`, up to `limit` of them. */
export function walk(
  path: string,
  entries: Map<string, Entry>,
  own: ReadonlySet<string>,
  limit: number,
  inModules = false
): void {
  if (entries.size >= limit) {
    entries.set(`${path} (too many entries)`, { hash: 'limit', mode: 0, fact: true })
    return
  }
  let stat
  try {
    stat = lstatSync(path)
  } catch {
    return
  }
  const kind = stat.mode.toString(8)
  const mode = stat.mode
  if (stat.isSymbolicLink()) {
    const link = readlinkSync(path)
    entries.set(path, { hash: `link ${kind} ${link}`, mode, link })
  } else if (stat.isDirectory()) {
    // One a command closed (chmod 000) is a change of its own; what it held reads as gone.
    const names = readable(() => readdirSync(path).sort())
    entries.set(path, { hash: `dir ${kind}${names ? '' : ' unreadable'}`, mode })
    // A submodule's git folder (under .git/modules, or a gitlink's own .git): its objects,
    // logs and LFS store are data, its objects/info is watched.
    const modules = inModules || basename(path) === 'modules' || basename(path) === '.git'
    for (const name of names ?? []) {
      if (own.has(join(path, name))) continue
      // Git LFS's store and scratch: data by its hash, as large as the files it holds.
      if (basename(path) === 'lfs' && (name === 'objects' || name === 'tmp')) continue
      if (modules && (name === 'logs' || name === 'lfs')) continue
      if (modules && basename(path) === 'objects' && name !== 'info') continue
      walk(join(path, name), entries, own, limit, modules)
    }
  } else if (stat.isFile()) {
    // Its link count too: a second name given to it (COMMIT_EDITMSG linked to a hook) is a
    // change, since a write to one is a write to the other.
    const content = stat.size <= MOST_KEPT_BYTES ? readable(() => readFileSync(path)) : undefined
    if (!content) {
      const known = `${stat.nlink} ${stat.size} ${stat.mtimeMs} ${stat.ino}`
      entries.set(path, { hash: `file ${kind} ${known} unread`, mode })
      return
    }
    const digest = createHash('sha256').update(content).digest('hex')
    entries.set(path, { hash: `file ${kind} ${stat.nlink} ${digest}`, mode, content })
  } else {
    entries.set(path, { hash: `other ${kind}`, mode })
  }
}

/** What `read` returns, or undefined where it fails (a file or folder that cannot be read). */
function readable<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
