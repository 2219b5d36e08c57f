import { spawn } from 'node:child_process'

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
export function utf8(bytes: Buffer): string | undefined {
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
