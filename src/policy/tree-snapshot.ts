import { spawn } from 'node:child_process'
import { chmodSync, lstatSync } from 'node:fs'
import { join } from 'node:path'
import type { GitRunner } from './repo-paths.js'

/**
 * Every entry of the work tree (ignored files, links, fifos and sockets included; `.git` and the
 * run's own folder left out) with what its lstat says, listed by find: it never follows a link,
 * and walks folder chains past PATH_MAX from the inside. No file is read, so a 50 000-file
 * node_modules costs one pass of stats.
 */
type Stamps = Map<string, string>

/** find's fields: type, device, inode, size, mtime, ctime, permission bits, then the path. */
const FORMAT = '%y %D %i %s %T@ %C@ %m %P\\0'
const FIELDS = 7
/** find with no relative folder on its PATH (-execdir refuses one). */
const FIND_ENV = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', LC_ALL: 'C' }

/**
 * The work tree as found before validation, to put it back afterwards (where validation ran on
 * the tree itself: no overlay told what it touched). Paths are held as latin1 strings of their
 * bytes, so a name that is not UTF-8 is still one path.
 */
export class TreeSnapshot {
  private constructor(
    private readonly root: string,
    private readonly skip: readonly string[],
    private readonly before: Stamps
  ) {}

  /** `skip`: repository paths never listed nor touched (`.git`, the run's own folder). */
  static async take(root: string, skip: readonly string[]): Promise<TreeSnapshot> {
    return new TreeSnapshot(root, skip, await listTree(root, skip, false))
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
    const after = await listTree(this.root, this.skip, unprivileged)
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
      const was = this.before.get(path)
      const isFolder = stamp[0] === 'd'
      if (isFolder && was?.[0] === 'd') {
        if (perm(was) !== perm(stamp) || (unprivileged && !userRwx(was))) modes.push([path, was])
        continue
      }
      if (spared.has(path) || (was !== undefined && sameFile(was, stamp))) continue
      if (isFolder && [...spared].some((s) => s.startsWith(`${path}/`))) continue
      tops.push(path)
      if (isFolder) removing = `${path}/`
    }
    await removeAll(this.root, tops)
    for (const [path, was] of modes.reverse()) {
      const name = text(path)
      if (name === undefined) continue
      try {
        chmodSync(join(this.root, name), Number.parseInt(perm(was), 8))
      } catch {
        // Past PATH_MAX, or gone: nothing validation made can be opened through it any more.
      }
    }
    const gone = [...this.before.keys()].filter((path) => !after.has(path))
    await restoreTracked(git, [...tops, ...gone])
    // Not listed again: what is back (a tracked file checked out) is asked about alone.
    return tops
      .filter((path) => !present(this.root, path))
      .map((path) => text(path) ?? printableBytes(path))
  }
}

/** Non-folder entries are the same when nothing of their stat changed (ctime cannot be set back). */
function sameFile(was: string, now: string): boolean {
  return was === now
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

/**
 * The tree's entries in find's order (a folder before its contents). `openUp`: folders the
 * user cannot enter or change are opened first (validation may have closed one it made), so
 * nothing under them escapes the listing or the removal.
 */
async function listTree(root: string, skip: readonly string[], openUp: boolean): Promise<Stamps> {
  const names = skip.flatMap((path, i) => [...(i > 0 ? ['-o'] : []), '-path', `./${path}`])
  const prune = names.length > 0 ? ['(', ...names, ')', '-prune', '-o'] : []
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
  const args = ['.', '-mindepth', '1', ...prune, ...open, '-printf', FORMAT]
  // A folder still closed, or an entry gone while listed, is no reason to stop putting back.
  const out = await run('find', args, root, true)
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
      const inode = (await listTree(root, [], false)).get(path)?.split(' ')[2]
      if (!inode) continue
      const args = [folder, '-mindepth', '1', '-maxdepth', '1', '-inum', inode]
      await run('find', [...args, '-exec', 'find', '{}', '-delete', ';'], root, true)
    }
  }
  for (let i = 0; i < named.length; i += 2000)
    await run('find', [...named.slice(i, i + 2000), '-delete'], root, true)
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
