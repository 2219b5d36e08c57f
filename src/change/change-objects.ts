import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gitDirs, readRegularFile, type Git } from '../git/index.js'

/**
 * The objects a hooked commit's change stands on: the blobs of the changed paths before and
 * after, which the settle and a rollback check out. A hook may write the object store (git
 * must), so it can rewrite such an object's loose file in place, or plant a loose file that
 * shadows a packed one: git does not check an object's bytes against its name when it reads
 * it, and would write the hook's bytes into the tree. Their loose files are kept before the
 * commit and put back after it, one planted is removed, and each is then checked against its
 * name (with the commit and the trees it made): a packed one a hook rewrote is named.
 */
export class ChangeObjects {
  private constructor(
    private readonly folder: string,
    private readonly loose: ReadonlyMap<string, Buffer | undefined>,
    /** The pack folder's files: the commit makes none (no gc in it), so a new one is a hook's. */
    private readonly packs: ReadonlySet<string>
  ) {}

  /** Before the commit: the blobs the index changes against HEAD, and their loose files. */
  static async take(git: Git): Promise<ChangeObjects> {
    const out = await git.exec(['diff-index', '--cached', '--raw', '-z', '--no-renames', 'HEAD'])
    const shas = new Set<string>()
    for (const field of out.stdout.split('\0'))
      if (field.startsWith(':'))
        for (const sha of field.split(' ').slice(2, 4)) if (!/^0+$/.test(sha)) shas.add(sha)
    const folder = join(gitDirs(git.dir).at(-1)!, 'objects')
    const loose = new Map<string, Buffer | undefined>()
    for (const sha of shas) {
      const bytes = readRegularFile(looseFile(folder, sha))
      loose.set(sha, Buffer.isBuffer(bytes) ? bytes : undefined)
    }
    return new ChangeObjects(folder, loose, new Set(namesIn(join(folder, 'pack'))))
  }

  /**
   * After the commit, however it ended: the loose files as they were (never through a link),
   * and a pack a hook added removed (git reads packs first: one holding a forged copy of an
   * object shadows its loose file). Returns the packs removed.
   */
  putBack(): string[] {
    const planted = namesIn(join(this.folder, 'pack'))
      .filter((name) => !this.packs.has(name))
      .map((name) => join(this.folder, 'pack', name))
    for (const file of planted) rmSync(file, { recursive: true, force: true })
    for (const [sha, bytes] of this.loose) {
      const file = looseFile(this.folder, sha)
      if (!bytes) {
        rmSync(file, { force: true })
        continue
      }
      if (!equal(file, bytes)) replaceFile(file, bytes, 0o444)
    }
    return planted
  }

  /** The objects (these, and `more`) whose bytes do not hash to their names. */
  async forged(git: Git, more: readonly string[] = []): Promise<string[]> {
    // A reader started before the hooks ran may not see what they added: a fresh one.
    git.objects.close()
    const forged: string[] = []
    for (const sha of new Set([...this.loose.keys(), ...more])) {
      const object = await git.objects.read(sha)
      if (!object) continue
      const hash = createHash(sha.length === 64 ? 'sha256' : 'sha1')
      hash.update(`${object.type} ${object.size}\0`).update(object.content)
      if (hash.digest('hex') !== sha) forged.push(sha)
    }
    return forged
  }
}

function looseFile(folder: string, sha: string): string {
  return join(folder, sha.slice(0, 2), sha.slice(2))
}

function equal(file: string, bytes: Buffer): boolean {
  try {
    return readFileSync(file).equals(bytes)
  } catch {
    return false
  }
}

/** `file` made `bytes` by a rename (never written through a link left at either name). */
export function replaceFile(file: string, bytes: Buffer, mode: number): void {
  const temporary = `${file}.patchsmith-${process.pid}`
  rmSync(temporary, { force: true })
  writeFileSync(temporary, bytes, { flag: 'wx', mode })
  renameSync(temporary, file)
}

export function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder)
  } catch {
    return []
  }
}
