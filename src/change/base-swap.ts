import {
  closeSync,
  constants,
  fchmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync
} from 'node:fs'
import { dirname, join } from 'node:path'
import { gitDirs, walkPath } from '../git/index.js'
import { privateFolder } from '../run-state/index.js'

/** A work-tree file's bytes and mode, or null when it does not exist. */
type FileState = { bytes: Buffer; mode: number } | null

const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW

/**
 * The base check's swap for the files a patch touches: their base bytes put in the work tree for
 * one command and the draft's put back after, by plain writes. `git apply -R --index` and
 * `git apply --index` would each read and rewrite the whole index (about 50 ms each at 100 000
 * files) only to end where they started. The command still sees a consistent repository: its git
 * reads the index as it was before the draft was applied, through GIT_INDEX_FILE and a hard link
 * kept to that file (git replaces the index by renaming a new file over it, so the link keeps
 * the old one). Every write walks the path with lstat first and never follows a link; whatever
 * is not a plain file or folder on the way makes the swap decline, and the caller goes the git
 * way instead.
 */
export class BaseSwap {
  private draft?: Map<string, FileState>

  private constructor(
    private readonly root: string,
    private readonly base: ReadonlyMap<string, FileState>,
    /** Folders the draft created, outermost first: taken away for the base, made again after. */
    private readonly madeFolders: readonly string[],
    /** The link to the index before the draft was applied. */
    readonly indexFile: string
  ) {}

  /**
   * Taken just before the patch is applied, while the work tree and the index are the base's.
   * Undefined when a path is not plain or the index cannot be linked.
   */
  static before(root: string, paths: readonly string[]): BaseSwap | undefined {
    const base = readStates(root, paths)
    if (!base) return undefined
    const gitDir = gitDirs(root)[0]!
    // One name per work tree (the run lock allows one run): a run killed meanwhile leaves at most
    // this file, which the next one replaces.
    const indexFile = join(gitDir, 'patchsmith', 'base-index')
    try {
      // A real folder, not a link a hook may have left (as for the journal).
      privateFolder(dirname(indexFile))
      rmSync(indexFile, { force: true })
      linkSync(join(gitDir, 'index'), indexFile)
    } catch {
      return undefined
    }
    const made = new Set<string>()
    for (const [path, state] of base)
      if (state === null) for (const folder of missingFolders(root, path)) made.add(folder)
    return new BaseSwap(root, base, [...made].sort(byDepth), indexFile)
  }

  /** Right after the patch applied: the draft's bytes, to put back after the base check. */
  afterApply(): boolean {
    const draft = readStates(this.root, [...this.base.keys()])
    this.draft = draft
    return draft !== undefined
  }

  /** The base's files in the work tree; false when declined (the caller then resets git's way). */
  toBase(): boolean {
    // A command that changed a planned file gets git's full reset instead.
    if (!this.draft || !sameStates(readStates(this.root, [...this.draft.keys()]), this.draft))
      return false
    if (!this.write(this.base)) return false
    for (const folder of [...this.madeFolders].reverse()) {
      try {
        rmdirSync(join(this.root, folder))
      } catch {
        // not empty (validation wrote there): it stays for the watch to judge
      }
    }
    return true
  }

  /** The draft's files back in the work tree. */
  toDraft(): boolean {
    return this.draft !== undefined && this.write(this.draft)
  }

  /** The link to the old index, taken away. */
  dispose(): void {
    rmSync(this.indexFile, { force: true })
  }

  private write(states: ReadonlyMap<string, FileState>): boolean {
    for (const [path, state] of states) if (!writeState(this.root, path, state)) return false
    return true
  }
}

function readStates(root: string, paths: readonly string[]): Map<string, FileState> | undefined {
  const states = new Map<string, FileState>()
  for (const path of paths) {
    const found = walkPath(root, path)
    if (found.kind === 'missing') states.set(path, null)
    else if (found.kind !== 'file') return undefined
    else
      states.set(path, {
        bytes: readFileSync(found.full),
        mode: lstatSync(found.full).mode & 0o777
      })
  }
  return states
}

function sameStates(
  now: ReadonlyMap<string, FileState> | undefined,
  then: ReadonlyMap<string, FileState>
): boolean {
  if (!now) return false
  for (const [path, state] of then) {
    const found = now.get(path)
    if (state === null || found === null || found === undefined) {
      if (state !== found) return false
    } else if (found.mode !== state.mode || !found.bytes.equals(state.bytes)) return false
  }
  return true
}

/** Puts one file in `state`, through folders only (made when missing), never through a link. */
function writeState(root: string, path: string, state: FileState): boolean {
  const found = walkPath(root, path)
  if (found.kind === 'symlink' || found.kind === 'not-a-folder' || found.kind === 'not-a-file')
    return false
  try {
    if (state === null) {
      if (found.kind === 'file') unlinkSync(found.full)
      return true
    }
    const segments = path.split('/')
    for (let i = 1; i < segments.length; i++) {
      const folder = join(root, ...segments.slice(0, i))
      const stat = lstatSync(folder, { throwIfNoEntry: false })
      if (!stat) mkdirSync(folder)
      else if (!stat.isDirectory()) return false
    }
    const fd = openSync(join(root, path), WRITE_FLAGS, state.mode)
    try {
      writeSync(fd, state.bytes)
      fchmodSync(fd, state.mode)
    } finally {
      closeSync(fd)
    }
    return true
  } catch {
    return false
  }
}

/** The folders on `path`'s way that do not exist yet. */
function missingFolders(root: string, path: string): string[] {
  const segments = path.split('/')
  const missing: string[] = []
  for (let i = 1; i < segments.length; i++) {
    const folder = segments.slice(0, i).join('/')
    if (!lstatSync(join(root, folder), { throwIfNoEntry: false })) missing.push(folder)
  }
  return missing
}

function byDepth(a: string, b: string): number {
  return a.split('/').length - b.split('/').length || a.localeCompare(b)
}

/**
 * Whatever a command put on the way of each path that is not a plain folder (a link or a file in
 * place of a folder, a link at the path itself) removed, never followed: `git apply` would write
 * the change through it, outside the work tree.
 */
export function clearWays(root: string, paths: readonly string[]): void {
  for (const path of paths)
    for (let i = 0; i < path.split('/').length; i++) {
      const found = walkPath(root, path)
      if (found.kind !== 'symlink' && found.kind !== 'not-a-folder') break
      rmSync(join(root, found.at), { force: true })
    }
}
