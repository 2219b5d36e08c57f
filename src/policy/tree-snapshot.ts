import { spawn } from 'node:child_process'
import { chmodSync, lstatSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { GitRunner } from './repo-paths.js'

/**
 * The work tree's folders (with their modes) before validation, and a mark in time: afterwards
 * only the entries whose ctime is past the mark are listed (find, never following a link, from
 * the inside of folder chains past PATH_MAX). Validation cannot set a ctime back, so every entry
 * it created, changed, renamed or chmodded is among them, ignored files, links, fifos and
 * sockets included; nothing else of a 150 000-entry tree is printed or parsed, and the listing
 * before reads folders only (no stat of each file).
 */
type Stamps = Map<string, string>

/** find's fields: type, device, inode, size, mtime, ctime, permission bits, then the path. */
const FORMAT = '%y %D %i %s %T@ %C@ %m %P\\0'
const FIELDS = 7
/** find with no relative folder on its PATH (-execdir refuses one). */
const FIND_ENV = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', LC_ALL: 'C' }
/** Waiting for the file system's clock to move past the mark, at most (a coarse one: 1 s). */
const LONGEST_TICK_MS = 2500

/**
 * The work tree as found before validation, to put it back afterwards (where validation ran on
 * the tree itself: no overlay told what it touched). Paths are held as latin1 strings of their
 * bytes, so a name that is not UTF-8 is still one path.
 */
export class TreeSnapshot {
  private constructor(
    private readonly root: string,
    private readonly skip: readonly string[],
    /** Each folder there was, with its permission bits. */
    private readonly folders: ReadonlyMap<string, string>,
    /** A file outside the tree whose mtime is the mark: what changed after it is validation's. */
    private readonly mark: string
  ) {}

  /** `skip`: repository paths never listed nor touched (`.git`, the run's own folder). */
  static async take(root: string, skip: readonly string[]): Promise<TreeSnapshot> {
    const folders = await listFolders(root, skip)
    return new TreeSnapshot(root, skip, folders, await timeMark())
  }

  /**
   * Whatever validation created or changed that is not `approved` (or `keep`: build output a
   * later step wants, regular files only) removed, from the inside and never through a link;
   * tracked files it changed, replaced or deleted checked out from the index again; folders
   * given their mode back. Returns what was removed and is not back (repository paths).
   */
  async putBack(
    git: GitRunner,
    approved: readonly string[],
    keep: (path: string) => boolean
  ): Promise<string[]> {
    const unprivileged = process.getuid?.() !== 0
    let after: Stamps
    try {
      after = await listChanged(this.root, this.skip, this.mark, unprivileged)
    } finally {
      rmSync(dirname(this.mark), { recursive: true, force: true })
    }
    const spared = new Set<string>()
    const spare = (path: string) => {
      for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1))
        spared.add(path.slice(0, i))
      spared.add(path)
    }
    for (const path of approved) spare(latin1(path))
    for (const [path, stamp] of after) if (stamp[0] === 'f' && keep(text(path) ?? '')) spare(path)
    const tops: string[] = []
    const modes: Array<[string, string]> = []
    let removing: string | undefined
    // find lists a folder before what it holds: what lies under a removed folder goes with it.
    for (const [path, stamp] of after) {
      if (removing !== undefined && path.startsWith(removing)) continue
      removing = undefined
      const was = this.folders.get(path)
      const isFolder = stamp[0] === 'd'
      if (isFolder && was !== undefined) {
        if (was !== perm(stamp) || (unprivileged && !userRwx(was))) modes.push([path, was])
        continue
      }
      if (spared.has(path)) continue
      if (isFolder && [...spared].some((s) => s.startsWith(`${path}/`))) continue
      tops.push(path)
      if (isFolder) removing = `${path}/`
    }
    await removeAll(this.root, tops)
    for (const [path, was] of modes.reverse()) {
      const name = text(path)
      if (name === undefined) continue
      try {
        chmodSync(join(this.root, name), Number.parseInt(was, 8))
      } catch {
        // Past PATH_MAX, or gone: nothing validation made can be opened through it any more.
      }
    }
    // Tracked files validation deleted (or that went with a folder) come back from the index.
    const deleted = await git.exec(['ls-files', '--deleted', '-z'], { allowFailure: true })
    const gone = deleted.stdout
      .split('\0')
      .filter((path) => path.length > 0)
      .map(latin1)
    await restoreTracked(git, [...tops, ...gone])
    // Not listed again: what is back (a tracked file checked out) is asked about alone.
    return tops
      .filter((path) => !present(this.root, path))
      .map((path) => text(path) ?? printableBytes(path))
  }
}

/**
 * A fresh file's mtime as the mark, once the file system's clock has moved past it: an entry
 * changed in the same tick as the mark would have a ctime no later than it.
 */
async function timeMark(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-mark-'))
  const mark = join(dir, 'mark')
  writeFileSync(mark, '')
  const marked = statSync(mark, { bigint: true }).mtimeNs
  const probe = join(dir, 'probe')
  const started = Date.now()
  for (;;) {
    writeFileSync(probe, '')
    if (statSync(probe, { bigint: true }).ctimeNs > marked) break
    if (Date.now() - started > LONGEST_TICK_MS) break
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  return mark
}

function present(root: string, path: string): boolean {
  const name = text(path)
  if (name === undefined) return false
  try {
    lstatSync(join(root, name))
    return true
  } catch {
    return false
  }
}

function perm(stamp: string): string {
  return stamp.split(' ')[6] ?? ''
}

function userRwx(stamp: string): boolean {
  return (Number.parseInt(perm(stamp), 8) & 0o700) === 0o700
}

/** `-path ./skipped -prune -o`: `.git` and the run's own folder are never entered. */
function pruned(skip: readonly string[]): string[] {
  const names = skip.flatMap((path, i) => [...(i > 0 ? ['-o'] : []), '-path', `./${path}`])
  return names.length > 0 ? ['(', ...names, ')', '-prune', '-o'] : []
}

/** Every folder of the tree with its permission bits (readdir's types: no stat of each file). */
async function listFolders(root: string, skip: readonly string[]): Promise<Map<string, string>> {
  const args = ['.', '-mindepth', '1', ...pruned(skip), '-type', 'd', '-printf', '%m %P\\0']
  const out = await run('find', args, root, true)
  const folders = new Map<string, string>()
  for (let start = 0, end; (end = out.indexOf(0, start)) >= 0; start = end + 1) {
    const field = out.subarray(start, end).toString('latin1')
    const cut = field.indexOf(' ')
    if (cut > 0) folders.set(field.slice(cut + 1), field.slice(0, cut))
  }
  return folders
}

/**
 * The entries whose ctime is past `mark`, in find's order (a folder before its contents).
 * `openUp`: folders the user cannot enter or change are opened first (validation may have closed
 * one it made), so nothing under them escapes the listing or the removal.
 */
async function listChanged(
  root: string,
  skip: readonly string[],
  mark: string,
  openUp: boolean
): Promise<Stamps> {
  const open = openUp
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
  const args = ['.', '-mindepth', '1', ...pruned(skip), ...open, '-cnewer', mark, '-printf', FORMAT]
  // A folder still closed, or an entry gone while listed, is no reason to stop putting back.
  return stampsOf(await run('find', args, root, true))
}

function stampsOf(out: Buffer): Stamps {
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
async function removeAll(root: string, paths: readonly string[]): Promise<void> {
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

/** Tracked files among `paths` checked out from the index again (others are not git's). */
async function restoreTracked(git: GitRunner, paths: readonly string[]): Promise<void> {
  const names = paths.map(text).filter((name): name is string => name !== undefined)
  if (names.length === 0) return
  await git.exec(['checkout-index', '--force', '--quiet', '-z', '--stdin'], {
    input: `${names.join('\0')}\0`,
    allowFailure: true
  })
}

function run(program: string, args: string[], cwd: string, allowFailure = false): Promise<Buffer> {
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

function latin1(path: string): string {
  return Buffer.from(path, 'utf8').toString('latin1')
}

function text(path: string): string | undefined {
  return utf8(Buffer.from(path, 'latin1'))
}

const strict = new TextDecoder('utf-8', { fatal: true })

function utf8(bytes: Buffer): string | undefined {
  try {
    return strict.decode(bytes)
  } catch {
    return undefined
  }
}

function printableBytes(path: string): string {
  return JSON.stringify(Buffer.from(path, 'latin1').toString()).slice(1, -1)
}
