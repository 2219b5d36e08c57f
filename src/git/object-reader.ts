import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { createHash } from 'node:crypto'
import { Batch, type GitObject } from './object-batch.js'

/** One entry of a tree object, as `ls-tree` shows it (mode six digits, git's canonical mode). */
export interface TreeEntry {
  mode: string
  type: 'blob' | 'tree' | 'commit'
  sha: string
  name: string
}

/** Starts the `git cat-file --batch` process (Git.objects: counted, sealed, dies with the run). */
type BatchStart = () => Promise<ChildProcessWithoutNullStreams>

// A revision the reader names: an object id, or HEAD. No ref names, ranges or `^{}` suffixes.
const REVISION = /^(?:[0-9a-f]{40}|[0-9a-f]{64}|HEAD)$/

/**
 * Reads objects through one long-lived `git cat-file --batch` for the whole run, instead of a
 * short process per reader (instruction files, `.editorconfig`, the trees along planned paths).
 * Written by hand: no maintained library gives a persistent batch reader over the git CLI
 * Patchsmith already seals (the packages that read objects parse the object database
 * themselves, or start a process per call). Requests go one at a time over the pipe; git
 * answers `<sha> <type> <size>\n<content>\n`, or `<spec> missing`.
 */
export class ObjectReader {
  private process?: Batch
  private queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly start: BatchStart) {}

  /**
   * The object `rev` names, or the one at `path` in it (`''`: its root tree); undefined when
   * there is none. A path git would read as another request or resolve against the working
   * folder (a line break, `./`, `../`) is refused with an error.
   */
  async read(
    rev: string,
    path?: string,
    options: { maxBytes?: number } = {}
  ): Promise<GitObject | undefined> {
    const spec = batchSpec(rev, path)
    const result = this.queue.then(() => this.request(spec, options.maxBytes ?? Infinity))
    this.queue = result.catch(() => undefined)
    return result
  }

  /**
   * The entries of the tree `rev` names (a commit: its root tree), or of the folder `path` in
   * it; undefined when there is none. Read by id from the root down when `path` is given, so
   * no path reaches git.
   */
  async tree(rev: string, path = ''): Promise<TreeEntry[] | undefined> {
    let found = await this.read(rev)
    if (found?.type === 'commit') found = await this.read(commitTree(found.content))
    if (found?.type !== 'tree') return undefined
    let entries = parseTree(found.content, found.sha.length / 2)
    for (const name of path === '' ? [] : path.split('/')) {
      const entry = entries.find((candidate) => candidate.name === name)
      if (entry?.type !== 'tree') return undefined
      const sub = await this.read(entry.sha)
      if (sub?.type !== 'tree') return undefined
      entries = parseTree(sub.content, sub.sha.length / 2)
    }
    return entries
  }

  /**
   * The files at `paths` in `rev` of at most `maxBytes` each; a path that is not a file there,
   * that git cannot be asked for, or whose read failed is left out.
   */
  async blobs(
    rev: string,
    paths: readonly string[],
    maxBytes: number
  ): Promise<Map<string, Buffer>> {
    const found = await Promise.all(
      paths.map((path) => this.read(rev, path, { maxBytes }).catch(() => undefined))
    )
    const files = new Map<string, Buffer>()
    paths.forEach((path, i) => {
      const object = found[i]
      if (object?.type === 'blob' && object.size <= maxBytes) files.set(path, object.content)
    })
    return files
  }

  /** Which of these object ids the repository has (each read, its content skipped). */
  async has(ids: readonly string[]): Promise<boolean[]> {
    return Promise.all(
      ids.map(async (id) => (await this.read(id, undefined, { maxBytes: 0 })) !== undefined)
    )
  }

  /** Ends the process (at the end of the run); a later read starts another. */
  close(): void {
    this.process?.end()
    this.process = undefined
  }

  private async request(spec: string, maxBytes: number): Promise<GitObject | undefined> {
    this.process ??= new Batch(await this.start())
    const batch = this.process
    try {
      return await batch.ask(spec, maxBytes)
    } catch (error) {
      // A process that died or answered out of step serves no further request.
      batch.end()
      if (this.process === batch) this.process = undefined
      throw error
    }
  }
}

/** Whether the reader takes `rev` as it is: an object id, or HEAD. */
export function isObjectRevision(rev: string): boolean {
  return REVISION.test(rev)
}

/** `<rev>` or `<rev>:<path>`, checked so that it is one request and nothing else. */
function batchSpec(rev: string, path?: string): string {
  if (!REVISION.test(rev)) throw new Error(`Not an object id or HEAD: ${JSON.stringify(rev)}`)
  if (path === undefined) return rev
  // cat-file reads a line (a CR before the LF is dropped); `./` and `../` are relative to the
  // working folder, and `../` past the root ends the process.
  if (/[\n\r\0]/.test(path) || /^\.\.?(?:\/|$)/.test(path))
    throw new Error(`A path cat-file cannot be asked for: ${JSON.stringify(path)}`)
  return `${rev}:${path}`
}

/** A blob's id as git computes it (`blob <size>\0<bytes>`), SHA-1 or SHA-256 by hex length. */
export function blobId(content: Buffer, hexLength: number): string {
  return objectId('blob', content, hexLength)
}

/** An object's id as git computes it (`<type> <size>\0<bytes>`), SHA-1 or SHA-256 by length. */
export function objectId(type: string, content: Buffer, hexLength: number): string {
  return createHash(hexLength === 64 ? 'sha256' : 'sha1')
    .update(`${type} ${content.length}\0`)
    .update(content)
    .digest('hex')
}

/** A tree object's entries: `<mode> <name>\0<id>`, the id `idBytes` long. */
export function parseTree(body: Buffer, idBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = []
  let at = 0
  while (at < body.length) {
    const space = body.indexOf(0x20, at)
    const nul = body.indexOf(0, space + 1)
    if (space < 0 || nul < 0 || nul + 1 + idBytes > body.length)
      throw new Error('A tree object git returned does not parse')
    const mode = canonicalMode(Number.parseInt(body.toString('latin1', at, space), 8))
    const name = body.toString('utf8', space + 1, nul)
    const sha = body.toString('hex', nul + 1, nul + 1 + idBytes)
    entries.push({ mode, type: entryType(mode), sha, name })
    at = nul + 1 + idBytes
  }
  return entries
}

/** git's canon_mode: a file 100644 or 100755, a link, a folder, else a submodule. */
function canonicalMode(mode: number): string {
  const kind = mode & 0o170000
  if (kind === 0o100000) return mode & 0o100 ? '100755' : '100644'
  if (kind === 0o120000) return '120000'
  if (kind === 0o040000) return '040000'
  return '160000'
}

function entryType(mode: string): TreeEntry['type'] {
  return mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob'
}

/** A commit object's root tree: its first line, `tree <id>`. */
function commitTree(content: Buffer): string {
  const match = /^tree ([0-9a-f]{40}(?:[0-9a-f]{24})?)\n/.exec(content.toString('latin1', 0, 80))
  if (!match) throw new Error('A commit object git returned names no tree')
  return match[1]!
}
