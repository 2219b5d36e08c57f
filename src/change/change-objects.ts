import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { objectId, type Git } from '../git/index.js'

/**
 * Where a hooked commit writes its objects: a quarantine folder in the git folder, with the
 * repository's own store as its alternate, as git's receive-pack does for a push. The jail
 * shows the store itself read-only (JailPlan), so nothing a hook does can rewrite, shadow or
 * pack over an object of the repository, or move the store aside: git does not check an
 * object's bytes against its name when it reads it, and would check a forged blob out into
 * the tree. After an accepted commit, the commit and the trees it made are read from the
 * quarantine, checked against their names and written to the store; the rest goes with it.
 */
/** A commit or tree the commit made is far smaller; a hook's object past it is not read. */
const MADE_OBJECT_BYTES = 64 * 1024 * 1024

export class ObjectQuarantine {
  private constructor(
    private readonly folder: string,
    private readonly store: string
  ) {}

  /** An empty quarantine in `gitDir` for the store at `store`. */
  static create(gitDir: string, store: string): ObjectQuarantine {
    const folder = join(gitDir, `patchsmith-objects-${process.pid}`)
    rmSync(folder, { recursive: true, force: true })
    mkdirSync(folder)
    return new ObjectQuarantine(folder, store)
  }

  /** What git needs to write here and read both (hooks inherit it; the store is read-only). */
  get env(): Record<string, string> {
    return { GIT_OBJECT_DIRECTORY: this.folder, GIT_ALTERNATE_OBJECT_DIRECTORIES: this.store }
  }

  /** What reads the store first and the quarantine after (for what only the commit made). */
  get readEnv(): Record<string, string> {
    return { GIT_OBJECT_DIRECTORY: this.store, GIT_ALTERNATE_OBJECT_DIRECTORIES: this.folder }
  }

  /** The folder's name in the git folder (made before the commit: not a hook's). */
  get name(): string {
    return this.folder.slice(dirname(this.folder).length + 1)
  }

  /**
   * Writes those of `shas` the store lacks to it from here, each only once its bytes hash to
   * its name. Returns those that do not (or are not here), and writes nothing then.
   */
  async adopt(git: Git, shas: readonly string[]): Promise<string[]> {
    const reader = git.objectReader(this.readEnv)
    try {
      const objects = []
      const forged: string[] = []
      for (const sha of shas) {
        // In the store already (the approved blobs): no hook could have changed it there.
        if (await git.objects.read(sha, undefined, { maxBytes: 0 })) continue
        const object = await reader.read(sha, undefined, { maxBytes: MADE_OBJECT_BYTES })
        if (!object || objectId(object.type, object.content, sha.length) !== sha) forged.push(sha)
        else objects.push(object)
      }
      if (forged.length > 0) return forged
      for (const { sha, type, content } of objects) {
        const file = join(this.store, sha.slice(0, 2), sha.slice(2))
        mkdirSync(dirname(file), { recursive: true })
        const loose = deflateSync(
          Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content])
        )
        replaceFile(file, loose, 0o444)
      }
      return []
    } finally {
      reader.close()
    }
  }

  /** Still the folder made for it (not a link or a fifo a hook left in its place). */
  intact(): boolean {
    return lstatSync(this.folder, { throwIfNoEntry: false })?.isDirectory() === true
  }

  /** Removes the quarantine (a link a hook left in its place, not what it points at). */
  dispose(): void {
    rmSync(this.folder, { recursive: true, force: true })
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
