import { execFileSync } from 'node:child_process'
import { lstatSync } from 'node:fs'

/** A file's device, inode and number of names (lstat's dev, ino, nlink). */
export interface FileIdentity {
  dev: number
  ino: number
  nlink: number
}

/**
 * Whether `file` is also a file under one of `folders` (its other name a hard link there): a
 * program on the host that is a hard link of a file of the tree is rewritten in place by
 * validation on the tree itself (`validation-overlay: false`), and git would run the result
 * (attack round 23). Only a file of more than one name on a folder's device is searched for.
 */
export function hardLinkedInto(file: FileIdentity, folders: readonly string[]): boolean {
  if (file.nlink < 2) return false
  return folders.some((folder) => {
    const stat = lstatSync(folder, { throwIfNoEntry: false })
    if (!stat?.isDirectory() || stat.dev !== file.dev) return false
    const linked = multiLinked(folder, `${stat.dev}:${stat.ino}`)
    // A folder find could not list at all: any file of that device may be its.
    return linked === undefined || linked.has(`${file.dev}:${file.ino}`)
  })
}

/**
 * The files of more than one name under each folder searched (by path and identity): once per
 * process, as a hard link into the tree comes from the host before the run, never from a
 * command in the jail (a link across mounts fails there, EXDEV; a commit cannot hold one).
 */
const searched = new Map<string, Set<string> | undefined>()

/**
 * By hand because no library lists files by link count without a stat of each in JS; find
 * reads them in one process, on the folder's own file system (-xdev: a link never crosses one).
 */
function multiLinked(folder: string, identity: string): Set<string> | undefined {
  const key = `${folder}\0${identity}`
  if (searched.has(key)) return searched.get(key)
  let out: string
  try {
    out = execFileSync(
      'find',
      [folder, '-xdev', '-type', 'f', '-links', '+1', '-printf', '%D:%i\\n'],
      {
        env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
        stdio: ['ignore', 'pipe', 'ignore'],
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024
      }
    )
  } catch (error) {
    // Exit status 1: a folder it could not read; what it listed still holds.
    const failed = error as { status?: number | null; stdout?: string }
    out = failed.status === 1 && failed.stdout ? failed.stdout : ''
    if (!out) {
      searched.set(key, undefined)
      return undefined
    }
  }
  const found = new Set(out.split('\n').filter(Boolean))
  searched.set(key, found)
  return found
}
