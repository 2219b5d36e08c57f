import { chmodSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, sep } from 'node:path'
import type { RepoIntegrity } from '../git/index.js'
import { namesIn } from './change-objects.js'

/**
 * What `git commit` itself writes in the git folders, the one change a hooked commit allows
 * there (RepoIntegrity watches the rest whole): COMMIT_EDITMSG, and once the branch moved its
 * ref and one line more in its reflog and HEAD's, each a plain file in plain folders. A hook
 * that turns any of them, or a folder on their way, into a link would have Patchsmith's own git
 * write through it later; one that rewrites a reflog (the stash's is another) loses history.
 */
export class CommitWrites {
  private readonly refFile: string
  private readonly reflogs: ReadonlyArray<{ file: string; folder: string }>

  constructor(
    private readonly dirs: readonly string[],
    branchRef: string,
    private readonly head: string
  ) {
    const common = dirs.at(-1)!
    this.refFile = branchRef ? join(common, branchRef) : ''
    this.reflogs = [
      { file: join(dirs[0]!, 'logs', 'HEAD'), folder: join(dirs[0]!, 'logs') },
      ...(branchRef
        ? [{ file: join(common, 'logs', branchRef), folder: join(common, 'logs') }]
        : [])
    ]
  }

  /** Whether the change at `path` is the commit's own (`moved`: the commit moved the branch). */
  allows(path: string, guard: RepoIntegrity, moved: boolean): boolean {
    if (path === join(this.dirs[0]!, 'COMMIT_EDITMSG')) return kind(path) === 'file'
    if (!moved || !this.refFile) return false
    if (path === this.refFile) return kind(path) === 'file'
    if (onTheWay(path, this.refFile, join(this.dirs.at(-1)!, 'refs'))) return kind(path) === 'dir'
    for (const { file, folder } of this.reflogs) {
      if (path === file) return this.oneLineMore(file, guard.before(file))
      if (onTheWay(path, file, folder)) return kind(path) === 'dir'
    }
    return false
  }

  /** The reflog as it was, and one entry from the old tip after it. */
  private oneLineMore(file: string, before: Buffer = Buffer.alloc(0)): boolean {
    if (kind(file) !== 'file') return false
    let now: Buffer
    try {
      now = readFileSync(file)
    } catch {
      return false
    }
    if (!now.subarray(0, before.length).equals(before)) return false
    const added = now.subarray(before.length).toString('utf8')
    return new RegExp(`^${this.head} [0-9a-f]{40,64} [^\\n]*\\n$`).test(added)
  }
}

/** A folder `path` under `root` on the way to `file`. */
function onTheWay(path: string, file: string, root: string): boolean {
  return file.startsWith(path + sep) && path.startsWith(root + sep)
}

/** A file only with one name: a hard link to another file of .git would be written through. */
function kind(path: string): 'file' | 'dir' | 'other' {
  let stat
  try {
    stat = lstatSync(path, { throwIfNoEntry: false })
  } catch {
    // A folder on its way a hook closed (chmod 000): not a plain path.
    return 'other'
  }
  return stat?.isFile() && stat.nlink === 1 ? 'file' : stat?.isDirectory() ? 'dir' : 'other'
}

/** Folders and regular files only, all the way down. */
function plain(path: string): boolean {
  const found = kind(path)
  if (found === 'file') return true
  if (found !== 'dir') return false
  try {
    return readdirSync(path).every((name) => plain(join(path, name)))
  } catch {
    return false
  }
}

/**
 * What a git folder holds at its top, to tell what a hook added there (a link to the work tree
 * or /etc, a MERGE_HEAD, a worktree's folder): all but what a commit itself writes, as plain
 * files and folders, is removed.
 */
export class TopLevel {
  private readonly before: ReadonlyMap<string, ReadonlySet<string>>

  constructor(private readonly dirs: readonly string[]) {
    this.before = new Map(dirs.map((dir) => [dir, new Set(namesIn(dir))]))
  }

  /** Removes what was added since (never through a link); returns its paths. */
  remove(): string[] {
    const added: string[] = []
    for (const dir of this.dirs)
      for (const name of namesIn(dir)) {
        const path = join(dir, name)
        if (this.before.get(dir)?.has(name) || (COMMIT_WRITES.has(name) && plain(path))) continue
        openFolders(path)
        rmSync(path, { recursive: true, force: true })
        added.push(path)
      }
    return added
  }
}

/**
 * `path` and every folder in it opened to its owner, never through a link: one a hook closed
 * (chmod 000) would keep rmSync from what it holds, as a user other than root.
 */
function openFolders(path: string): void {
  const stack = [path]
  while (stack.length > 0) {
    const at = stack.pop()!
    try {
      const stat = lstatSync(at)
      if (!stat.isDirectory()) continue
      if ((stat.mode & 0o700) !== 0o700) chmodSync(at, (stat.mode & 0o7777) | 0o700)
      for (const name of readdirSync(at)) stack.push(join(at, name))
    } catch {
      // gone, or not ours to open: rmSync says so
    }
  }
}

/** What `git commit` may create at a git folder's top. */
const COMMIT_WRITES = new Set(['COMMIT_EDITMSG', 'logs', 'refs'])
