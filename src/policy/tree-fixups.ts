import { chmodSync, chownSync, lstatSync } from 'node:fs'
import { join } from 'node:path'
import { inode, run, text } from './tree-find.js'

/**
 * The longest path (bytes) find is started at, or Node is given: past it PATH_MAX is near, and
 * an entry is reached from inside its own folder instead.
 */
export const LONGEST_START = 3800

/** How many inodes one find looks for at once (each is two arguments). */
const BATCH = 500

/** The path as find and Node can name it from the root: UTF-8, and short enough. */
export function nameable(path: string): string | undefined {
  const name = text(path)
  return name !== undefined && Buffer.byteLength(name) < LONGEST_START ? name : undefined
}

/**
 * `action` run on each of `inodes` from inside its own folder (`-execdir`, which names it
 * `./name`), found by one walk of the tree that stays on its file system (where an inode is one
 * file) and never follows a link: for an entry whose path is not UTF-8 or is past what find can
 * start at. `prune`: what is found is not entered (it is being removed).
 */
async function fromInside(
  root: string,
  inodes: readonly string[],
  action: readonly string[],
  prune = false
): Promise<void> {
  for (let i = 0; i < inodes.length; i += BATCH) {
    const batch = inodes.slice(i, i + BATCH)
    const match = ['(', ...batch.flatMap((n, j) => [...(j > 0 ? ['-o'] : []), '-inum', n]), ')']
    const walk = ['.', '-xdev', '-mindepth', '1', ...match, ...(prune ? ['-prune'] : [])]
    await run('find', [...walk, '-execdir', ...action, '{}', ';'], root, true)
  }
}

/**
 * Each entry (path and find stamp) removed with all it holds, by find (it deletes from inside
 * each folder and never follows a link); one find cannot start at, from inside its folder.
 */
export async function removeAll(root: string, entries: ReadonlyArray<[string, string]>) {
  const named: string[] = []
  const unnamed: string[] = []
  for (const [path, stamp] of entries) {
    const name = nameable(path)
    if (name !== undefined) named.push(`./${name}`)
    else unnamed.push(inode(stamp))
  }
  for (let i = 0; i < named.length; i += 2000)
    await run('find', [...named.slice(i, i + 2000), '-delete'], root, true)
  // rm works from inside each folder (openat), so a chain past PATH_MAX goes too.
  await fromInside(root, unnamed, ['rm', '-rf', '--'], true)
}

/** What a folder that was there had: its permission bits (octal) and, as root, its owner. */
export interface FolderBack {
  path: string
  inode: string
  mode?: string
  owner?: string
}

/**
 * Folders given their mode and owner back, deepest first (a folder validation closed is opened
 * last); a folder find cannot start at is reached from inside its own folder.
 */
export async function foldersBack(root: string, folders: readonly FolderBack[]): Promise<void> {
  const byMode = new Map<string, string[]>()
  const byOwner = new Map<string, string[]>()
  const add = (map: Map<string, string[]>, key: string, number: string) =>
    map.set(key, [...(map.get(key) ?? []), number])
  for (const folder of folders) {
    const name = nameable(folder.path)
    if (folder.owner !== undefined && !ownerBack(root, name, folder.owner))
      add(byOwner, folder.owner, folder.inode)
    if (folder.mode !== undefined && !modeBack(root, name, folder.mode))
      add(byMode, folder.mode, folder.inode)
  }
  for (const [owner, inodes] of byOwner) await fromInside(root, inodes, ['chown', '-h', owner])
  // Five digits: GNU chmod keeps a folder's set-ID bits for a shorter number.
  for (const [mode, inodes] of byMode)
    await fromInside(root, inodes, ['chmod', mode.padStart(5, '0')])
}

/** True when done (or nothing to do) by the path; false to do it from inside. */
function ownerBack(root: string, name: string | undefined, owner: string): boolean {
  if (name === undefined) return false
  const [uid, gid] = owner.split(':').map(Number)
  try {
    const now = lstatSync(join(root, name))
    if (now.isDirectory() && (now.uid !== uid || now.gid !== gid))
      chownSync(join(root, name), uid ?? now.uid, gid ?? now.gid)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
}

function modeBack(root: string, name: string | undefined, mode: string): boolean {
  if (name === undefined) return false
  try {
    chmodSync(join(root, name), Number.parseInt(mode, 8))
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
}
