import { spawn } from 'node:child_process'
import { readdirSync, type Dirent } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

/**
 * The find listings TreeSnapshot puts the work tree back from: each entry's stamp (find's fields
 * before its path), paths held as latin1 strings of their bytes, never following a link.
 */
export type Stamps = Map<string, string>

/** find's fields: type, device, inode, size, mtime, ctime, permission bits, then the path. */
export const FORMAT = '%y %D %i %s %T@ %C@ %m %P\\0'
/** The same, the path from the start point (`./folder/…`) rather than under it. */
export const FORMAT_FROM_TOP = '%y %D %i %s %T@ %C@ %m %p\\0'
const FIELDS = 7
/** find with no relative folder on its PATH (-execdir refuses one). */
const FIND_ENV = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', LC_ALL: 'C' }

export interface Folder {
  mode: string
  inode: string
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

export function perm(stamp: string): string {
  return stamp.split(' ')[6] ?? ''
}

export function inode(stamp: string): string {
  return stamp.split(' ')[2] ?? ''
}

/** Which file an entry is: its device and inode (`dev:inode`, as listFolders' specials). */
export function fileId(stamp: string): string {
  const [, device, number] = stamp.split(' ')
  return `${device}:${number}`
}

/** find's test for a fifo, a socket or a device. */
// prettier-ignore
export const SPECIAL_TYPES = ['(', '-type', 'p', '-o', '-type', 's', '-o', '-type', 'b', '-o', '-type', 'c', ')']

export function userRwx(mode: string): boolean {
  return (Number.parseInt(mode, 8) & 0o700) === 0o700
}

/** `-path ./skipped -prune -o`: `.git` and the run's own folder are never entered. */
export function pruned(skip: readonly string[]): string[] {
  // -path takes a pattern: a log folder named `log[1]` is that name, not `log1`.
  const literal = (path: string) => path.replace(/[*?[\]\\]/g, '\\$&')
  const names = skip.flatMap((path, i) => [...(i > 0 ? ['-o'] : []), '-path', `./${literal(path)}`])
  return names.length > 0 ? ['(', ...names, ')', '-prune', '-o'] : []
}

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
  const folder = ['(', '-type', 'd', '-printf', '%m %i %s %p\\0', ')']
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
      const [mode, number, size] = field.split(' ', 3)
      const cut = field.indexOf(' ', field.indexOf(' ', field.indexOf(' ') + 1) + 1)
      // Each path from its start point: `./folder/…`.
      if (mode && number && size && cut > 0)
        folders.set(field.slice(cut + 3), { mode, inode: number, size: Number(size) })
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

export function stampsOf(out: Buffer): Stamps {
  const stamps: Stamps = new Map()
  for (let start = 0, end; (end = out.indexOf(0, start)) >= 0; start = end + 1) {
    const field = out.subarray(start, end).toString('latin1')
    let cut = -1
    for (let i = 0; i < FIELDS; i++) cut = field.indexOf(' ', cut + 1)
    if (cut > 0) stamps.set(field.slice(cut + 1), field.slice(0, cut))
  }
  return stamps
}

/**
 * Each path removed with all it holds, by find (it deletes from inside each folder and never
 * follows a link); a name that is not UTF-8 is found by its inode in its folder.
 */
export async function removeAll(root: string, paths: readonly string[]): Promise<void> {
  const named: string[] = []
  for (const path of paths) {
    const name = text(path)
    if (name !== undefined) named.push(`./${name}`)
    else {
      const slash = path.lastIndexOf('/')
      const folder = slash < 0 ? '.' : `./${text(path.slice(0, slash)) ?? '.'}`
      const inode = await inodeOf(root, path)
      if (!inode) continue
      const args = [folder, '-mindepth', '1', '-maxdepth', '1', '-inum', inode]
      await run('find', [...args, '-exec', 'find', '{}', '-delete', ';'], root, true)
    }
  }
  for (let i = 0; i < named.length; i += 2000)
    await run('find', [...named.slice(i, i + 2000), '-delete'], root, true)
}

/** The inode of an entry whose name is not UTF-8, found by a listing of its folder. */
async function inodeOf(root: string, path: string): Promise<string | undefined> {
  const args = ['.', '-mindepth', '1', '-printf', FORMAT]
  return stampsOf(await run('find', args, root, true))
    .get(path)
    ?.split(' ')[2]
}

/**
 * The regular files of the tree now (UTF-8 names; another is left out), `skip` not entered: the
 * user's files a put-back after repository code must keep whatever it did to them (guardHooks).
 */
export async function regularFiles(root: string, skip: readonly string[]): Promise<Set<string>> {
  const args = ['.', '-mindepth', '1', ...pruned(skip), '-type', 'f', '-printf', '%P\\0']
  const out = await run('find', args, root, true)
  const files = new Set<string>()
  for (let start = 0, end; (end = out.indexOf(0, start)) >= 0; start = end + 1) {
    const name = utf8(out.subarray(start, end))
    if (name !== undefined) files.add(name)
  }
  return files
}

export function run(
  program: string,
  args: string[],
  cwd: string,
  allowFailure = false
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, env: FIND_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()).slice(-2000))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0 || allowFailure) resolve(Buffer.concat(chunks))
      else reject(new Error(`find could not list the work tree: ${stderr.trim().slice(-500)}`))
    })
  })
}

export function latin1(path: string): string {
  return Buffer.from(path, 'utf8').toString('latin1')
}

export function text(path: string): string | undefined {
  return utf8(Buffer.from(path, 'latin1'))
}

// ignoreBOM: a name that starts with a byte-order mark keeps it (else `\uFEFFlnk` reads `lnk`).
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The bytes as UTF-8 text, exactly (they come back the same), or undefined. */
function utf8(bytes: Buffer): string | undefined {
  try {
    const name = strict.decode(bytes)
    return Buffer.from(name, 'utf8').equals(bytes) ? name : undefined
  } catch {
    return undefined
  }
}

export function printableBytes(path: string): string {
  return JSON.stringify(Buffer.from(path, 'latin1').toString()).slice(1, -1)
}
