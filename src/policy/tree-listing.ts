import { readdirSync, type Dirent } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import {
  FORMAT,
  FORMAT_FROM_TOP,
  latin1,
  pruned,
  run,
  SPECIAL_TYPES,
  stampsOf,
  text,
  utf8,
  type Stamps
} from './tree-find.js'

/**
 * Listing the work tree for TreeSnapshot: its folders before a round, and after it what changed,
 * by finds side by side where there are cores to spare (tree-find.ts runs them and reads them).
 */

export interface Folder {
  mode: string
  inode: string
  /** `uid:gid`: as root, validation could give a folder to another user. */
  owner: string
  /** The folder's own size in bytes (grows with the entries it holds). */
  size: number
}

/** At most this many finds list the tree side by side after validation. */
const MOST_FINDS = 4
/**
 * More folders to start from than this, or more bytes of their names: one find (each is an
 * argument, and arguments have a limit).
 */
const MOST_SPLIT_ENTRIES = 1000
const MOST_SPLIT_BYTES = 64 * 1024

/**
 * Every folder of the tree with its permission bits, inode and size (no stat of each file); where
 * there are cores to spare, by finds side by side from the root's folders' own folders (nothing
 * is known yet of what each holds: dealt out in turn, like folders spread alike).
 */
export async function listFolders(
  root: string,
  skip: readonly string[],
  /** Filled with every file named `.gitignore` (by its name and entry type: no stat of it). */
  ignoreFiles?: Set<string>,
  /** Filled with every fifo, socket and device there is, and which file it is (`dev:inode`). */
  specials?: Map<string, string>
): Promise<Map<string, Folder>> {
  const folder = ['(', '-type', 'd', '-printf', '%m %i %s %U:%G %p\\0', ')']
  const ignore = ['-name', '.gitignore', '-type', 'f', '-printf', 'G %p\\0']
  const special = [...SPECIAL_TYPES, '-printf', 'S %D:%i %p\\0']
  const tail = [
    ...pruned(skip),
    ...folder,
    '-o',
    ...ignore,
    ...(specials ? ['-o', ...special] : [])
  ]
  const split = splitStarts(root, skip, new Map(), true)
  const finds = split
    ? [
        ['.', ...split.opened.map((name) => `./${name}`), '-mindepth', '1', '-maxdepth', '1'],
        ...split.groups.map((starts) => [...starts.map((name) => `./${name}`), '-mindepth', '1'])
      ]
    : [['.', '-mindepth', '1']]
  const lists = await Promise.all(
    finds.map((starts) => run('find', [...starts, ...tail], root, true))
  )
  const folders = new Map<string, Folder>()
  for (const out of lists)
    for (let start = 0, end; (end = out.indexOf(0, start)) >= 0; start = end + 1) {
      const field = out.subarray(start, end).toString('latin1')
      if (field.startsWith('G ./')) ignoreFiles?.add(field.slice(4))
      if (field.startsWith('G ')) continue
      if (field.startsWith('S ')) {
        const at = field.indexOf(' ', 2)
        specials?.set(field.slice(at + 3), field.slice(2, at))
        continue
      }
      const [mode, number, size, owner] = field.split(' ', 4)
      let cut = -1
      for (let i = 0; i < 4; i++) cut = field.indexOf(' ', cut + 1)
      // Each path from its start point: `./folder/…`.
      if (mode && number && size && owner && cut > 0)
        folders.set(field.slice(cut + 3), { mode, inode: number, size: Number(size), owner })
    }
  return folders
}

/**
 * `after` with every entry under each of `folders` (UTF-8 names, all in `after`) placed after
 * the folder, whatever its ctime: what a folder moved there holds kept its own.
 */
export async function withAllUnder(
  root: string,
  after: Stamps,
  folders: readonly string[],
  openUp: boolean
): Promise<Stamps> {
  const under = new Map<string, Stamps>()
  for (const folder of folders) {
    const name = text(folder)
    if (name === undefined) continue
    const args = [`./${name}`, '-mindepth', '1', ...opening(openUp), '-printf', FORMAT_FROM_TOP]
    const listed = new Map<string, string>()
    for (const [path, stamp] of stampsOf(await run('find', args, root, true)))
      listed.set(path.slice(2), stamp)
    under.set(folder, listed)
  }
  const merged: Stamps = new Map()
  for (const [path, stamp] of after) {
    merged.set(path, stamp)
    for (const [inner, innerStamp] of under.get(path) ?? []) merged.set(inner, innerStamp)
  }
  return merged
}

/**
 * The entries whose ctime is past `mark`, a folder before all it holds (these together).
 * `openUp`: folders the user cannot enter or change are opened first (validation may have closed
 * one it made), so nothing under them escapes the listing or the removal. `weights`: how much
 * each of the root's folders and their folders held before (latin1 paths, one or two names):
 * where there are cores to spare, finds side by side each list under some of them, the heaviest
 * spread first, a folder heavier than a find's share split into its own folders.
 */
export async function listChanged(
  root: string,
  skip: readonly string[],
  mark: string,
  openUp: boolean,
  weights: ReadonlyMap<string, number> = new Map()
): Promise<Stamps> {
  const tail = [...pruned(skip), ...opening(openUp), '-cnewer', mark, '-printf']
  const split = splitStarts(root, skip, weights)
  // A folder still closed, or an entry gone while listed, is no reason to stop putting back.
  if (!split)
    return stampsOf(await run('find', ['.', '-mindepth', '1', ...tail, FORMAT], root, true))
  // The levels the finds below start from, first: whatever is closed there is opened before.
  const levels = ['.', ...split.opened].map((name) => (name === '.' ? name : `./${name}`))
  const depth = ['-mindepth', '1', '-maxdepth', '1']
  const first = await run('find', [...levels, ...depth, ...tail, FORMAT_FROM_TOP], root, true)
  const lists = await Promise.all(
    split.groups.map((starts) =>
      run(
        'find',
        [...starts.map((name) => `./${name}`), '-mindepth', '1', ...tail, FORMAT_FROM_TOP],
        root,
        true
      )
    )
  )
  const entries: Array<[string, string]> = []
  for (const out of [first, ...lists])
    for (const [path, stamp] of stampsOf(out)) entries.push([path.slice(2), stamp])
  // Name by name, a folder just before all it holds (no name holds a slash or a NUL).
  const key = (path: string) => path.replaceAll('/', '\0')
  return new Map(entries.sort(([a], [b]) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)))
}

/**
 * The folders finds side by side list under (UTF-8 names), in groups of about equal weight, and
 * the root's folders split into theirs (`openAll`: every one that can be); undefined for one find.
 */
export function splitStarts(
  root: string,
  skip: readonly string[],
  weights: ReadonlyMap<string, number>,
  openAll = false
): { groups: string[][]; opened: string[] } | undefined {
  const finds = Math.min(MOST_FINDS, availableParallelism())
  if (finds < 2) return undefined
  const top = foldersIn(root, '', skip)
  if (!top || top.length < 1) return undefined
  const weight = (path: string) => weights.get(latin1(path)) ?? 1
  const share = top.reduce((sum, path) => sum + weight(path), 0) / finds
  const starts: string[] = []
  const opened: string[] = []
  for (const path of top) {
    const inner = openAll || weight(path) > share ? foldersIn(root, path, skip) : undefined
    if (inner === undefined) starts.push(path)
    else {
      opened.push(path)
      starts.push(...inner)
    }
    if (starts.length + opened.length > MOST_SPLIT_ENTRIES) return undefined
  }
  const bytes = [...starts, ...opened].reduce((sum, path) => sum + Buffer.byteLength(path) + 3, 0)
  if (bytes > MOST_SPLIT_BYTES) return undefined
  const groups = Array.from({ length: finds }, () => ({ weight: 0, names: [] as string[] }))
  for (const path of starts.sort((a, b) => weight(b) - weight(a))) {
    const lightest = groups.reduce((least, group) => (group.weight < least.weight ? group : least))
    lightest.names.push(path)
    lightest.weight += weight(path)
  }
  const used = groups.filter((group) => group.names.length > 0).map((group) => group.names)
  return used.length > 1 ? { groups: used, opened } : undefined
}

/**
 * The folders directly in `folder` (a repository path, '' for the root), by the types the
 * folder's entries give (no stat); undefined where one's name is not UTF-8 or it cannot be read.
 * What `skip` names is left out: a find started there would not prune it (what lies deeper is).
 */
function foldersIn(root: string, folder: string, skip: readonly string[]): string[] | undefined {
  let entries: Dirent<Buffer>[]
  try {
    entries = readdirSync(join(root, folder), { encoding: 'buffer', withFileTypes: true })
  } catch {
    return undefined
  }
  const found: string[] = []
  for (const entry of entries) {
    const name = utf8(entry.name)
    if (name === undefined) return undefined
    const path = folder ? `${folder}/${name}` : name
    if (entry.isDirectory() && !skip.includes(path)) found.push(path)
  }
  return found
}

/** find's clause that opens a folder the user cannot enter or change, before going on. */
export function opening(openUp: boolean): string[] {
  return openUp
    ? [
        '(',
        '-type',
        'd',
        '!',
        '-perm',
        '-u=rwx',
        '-execdir',
        'chmod',
        'u+rwx',
        '{}',
        ';',
        ',',
        '-true',
        ')'
      ]
    : []
}
