import { LONGEST_START } from './tree-fixups.js'
import {
  FORMAT,
  FORMAT_FROM_TOP,
  inode,
  printableBytes,
  pruned,
  run,
  SPECIAL_TYPES,
  stampsOf,
  text,
  type Stamps
} from './tree-find.js'
import { opening, type Folder } from './tree-listing.js'
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'

/**
 * Fifos, sockets and devices validation left in the work tree, removed before git looks at it:
 * git opens every `.gitignore` and `.gitattributes` it meets, and opening a fifo waits for a
 * writer forever (the run hung, its lock held). Git cannot hold any of them, so none is ever
 * part of the change.
 */

/** find's tests for a fifo, a socket, a block and a character device. */
const TYPES = SPECIAL_TYPES
const SPECIAL = new Set(['p', 's', 'b', 'c'])

/** Whether a listing's stamp is a fifo's, a socket's or a device's. */
export const isSpecial = (stamp: string) => SPECIAL.has(stamp[0]!)
/** More folders to look under than this, or more bytes of their names: one find of the tree. */
const MOST_STARTS = 1000
const MOST_START_BYTES = 64 * 1024
/** Paths (or inodes) handed to one find. */
const BATCH = 500

/**
 * Folders and special files whose ctime is past `mark` (what validation made, renamed, linked or
 * emptied): the types come from the folders' entries, so only these are stat'ed.
 */
export async function listChangedFoldersAndSpecials(
  root: string,
  skip: readonly string[],
  mark: string,
  openUp: boolean
): Promise<Stamps> {
  const types = ['(', ...TYPES, '-o', '-type', 'd', ')']
  const args = ['.', '-mindepth', '1', ...pruned(skip), ...opening(openUp), ...types]
  return stampsOf(await run('find', [...args, '-cnewer', mark, '-printf', FORMAT], root, true))
}

/**
 * The special files validation left, from `changed` (entries past the mark, folders among
 * them): those changed themselves (made, renamed or linked there), and every one under a folder
 * that was not there or is not the one that was (`folders`, before): a folder moved into view
 * keeps the old ctimes of what it holds, a fifo planted in an ignored folder earlier among them.
 */
export async function specialsLeft(
  root: string,
  skip: readonly string[],
  changed: Stamps,
  folders: ReadonlyMap<string, Folder>
): Promise<Stamps> {
  const found: Stamps = new Map([...changed].filter(([, stamp]) => isSpecial(stamp)))
  // The listings give a folder just before all it holds: the topmost such folders only.
  const moved: string[] = []
  for (const [path, stamp] of changed) {
    const top = moved.at(-1)
    if (top !== undefined && path.startsWith(`${top}/`)) continue
    if (stamp[0] === 'd' && folders.get(path)?.inode !== inode(stamp)) moved.push(path)
  }
  if (moved.length === 0) return found
  const named = moved.map(text)
  const bytes = named.reduce((sum, name) => sum + (name?.length ?? Infinity) + 3, 0)
  const nameable =
    named.every((name) => name !== undefined && name.length < LONGEST_START) &&
    moved.length <= MOST_STARTS &&
    bytes <= MOST_START_BYTES
  if (nameable) {
    const starts = named.map((name) => `./${name!}`)
    const out = await run(
      'find',
      [...starts, '-mindepth', '1', ...TYPES, '-printf', FORMAT_FROM_TOP],
      root,
      true
    )
    for (const [path, stamp] of stampsOf(out)) found.set(path.slice(2), stamp)
    return found
  }
  // A folder find cannot start at: the whole tree's special files, those under one kept.
  const out = await run(
    'find',
    ['.', '-mindepth', '1', ...pruned(skip), ...TYPES, '-printf', FORMAT],
    root,
    true
  )
  const tops = new Set(moved)
  for (const [path, stamp] of stampsOf(out))
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1))
      if (tops.has(path.slice(0, i))) found.set(path, stamp)
  return found
}

/**
 * `specials` removed, and looked for again: one still there stops the run before git could meet
 * it. By their paths where find can name them (in batches); the rest (a folder on the way not
 * UTF-8, a path past what find can start at) by one find over the tree that deletes each by its
 * type and inode from inside its folder. That walk is not pruned (`-delete` walks depth first,
 * where find refuses -prune) and stays on the tree's file system, where an inode is one file.
 */
export async function removeSpecials(root: string, specials: Stamps): Promise<void> {
  const named: string[] = []
  const unnamed: string[] = []
  for (const [path, stamp] of specials) {
    const name = text(path)
    if (name !== undefined && name.length < LONGEST_START) named.push(`./${name}`)
    else unnamed.push(inode(stamp))
  }
  for (let i = 0; i < named.length; i += BATCH)
    await run('find', [...named.slice(i, i + BATCH), '-delete'], root, true)
  const left = named.filter((path) => lstatSync(join(root, path), { throwIfNoEntry: false }))
  for (let i = 0; i < unnamed.length; i += BATCH) {
    const inodes = unnamed.slice(i, i + BATCH)
    const match = ['(', ...inodes.flatMap((n, j) => [...(j > 0 ? ['-o'] : []), '-inum', n]), ')']
    const walk = ['.', '-xdev', '-mindepth', '1', ...TYPES, ...match]
    await run('find', [...walk, '-delete'], root, true)
    left.push(...stampsOf(await run('find', [...walk, '-printf', FORMAT], root, true)).keys())
  }
  if (left.length === 0) return
  throw new SecurityViolationError(
    `Validation left a fifo, socket or device that could not be removed ("${printableBytes(left[0]!)}"); git would wait on it forever, so nothing is committed. Validation must not leave special files in the work tree [rule unexpected-changes].`,
    {
      rule: 'unexpected-changes',
      stage: 'validation',
      problems: left.slice(0, 20).map(printableBytes)
    }
  )
}

/**
 * After validation changed an ignore file: no fifo, socket or device named `.gitignore` or
 * `.gitattributes` anywhere in the tree (git may now read folders it skipped, an ignored one
 * holding such a file from before the run); one is refused, not removed (it may be the user's).
 */
export async function assertNoGitFileSpecials(root: string, skip: readonly string[]) {
  const names = ['(', '-name', '.gitignore', '-o', '-name', '.gitattributes', ')']
  const args = ['.', '-mindepth', '1', ...pruned(skip), ...names, ...TYPES, '-printf', FORMAT]
  const found = [...stampsOf(await run('find', args, root, true)).keys()]
  if (found.length === 0) return
  throw new SecurityViolationError(
    `Validation changed an ignore file, and "${printableBytes(found[0]!)}" is a fifo, socket or device that git would now open and wait on forever; nothing is committed [rule unexpected-changes].`,
    {
      rule: 'unexpected-changes',
      stage: 'validation',
      problems: found.slice(0, 20).map(printableBytes)
    }
  )
}
