import { chmodSync, chownSync, lstatSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { walkPath } from '../git/index.js'
import type { GitRunner } from './repo-paths.js'
import {
  fileId,
  inode,
  latin1,
  perm,
  printableBytes,
  text,
  userRwx,
  type Stamps
} from './tree-find.js'
import { listChanged, listFolders, withAllUnder, type Folder } from './tree-listing.js'
import { foldersBack, removeAll, type FolderBack } from './tree-fixups.js'
import { timeMark } from './tree-mark.js'
import { changedScope, deletedTracked } from './tree-scope.js'
import {
  assertNoGitFileSpecials,
  isSpecial,
  listChangedFoldersAndSpecials,
  removeSpecials,
  specialsLeft
} from './special-files.js'

/**
 * The work tree's folders (with their modes) before validation, and a mark in time: afterwards
 * only the entries whose ctime is past the mark are listed (find, never following a link, from
 * the inside of folder chains past PATH_MAX). Validation cannot set a ctime back, so every entry
 * it created, changed, renamed or chmodded is among them, ignored files, links, fifos and
 * sockets included; nothing else of a 150 000-entry tree is printed or parsed, and the listing
 * before reads folders only (no stat of each file). A rename gives the folder moved a new ctime
 * but not what it holds: a folder that was not there, or is not the one that was (its inode),
 * is removed whole, or, where it holds what is kept, looked at whole.
 */
/** Validation may have closed a folder it made: as a user other than root, folders are opened. */
const openUp = () => process.getuid?.() !== 0

/**
 * The work tree as found before validation, to put it back afterwards (where validation ran on
 * the tree itself: no overlay told what it touched). Paths are held as latin1 strings of their
 * bytes, so a name that is not UTF-8 is still one path.
 */
export class TreeSnapshot {
  /** The entries changed since the mark, listed once after validation. */
  private listing?: Promise<Stamps>
  /** Why the special files validation left could not all be removed (removeSpecial). */
  private stopped?: unknown
  /** The special files removed while validation went on (removeSpecial), named by putBack. */
  private readonly specialRemoved = new Set<string>()
  /** What scope found, once: the listing it reads is listed once too. */
  private scoped?: Promise<string[] | undefined>

  private constructor(
    private readonly root: string,
    private readonly skip: readonly string[],
    /** Each folder there was: its permission bits and its inode. */
    private readonly folders: ReadonlyMap<string, Folder>,
    /** A file outside the tree whose mtime is the mark: what changed after it is validation's. */
    private readonly mark: string,
    /** Every `.gitignore` there was (latin1): one gone or no longer a file changes the rules. */
    private readonly ignoreFiles: ReadonlySet<string>,
    /** The fifos, sockets and devices there were (latin1), each `dev:inode`: the user's, kept. */
    private readonly specials: ReadonlyMap<string, string>,
    /** The tree's own folder: no listing holds it (they start under it). */
    private readonly top: { mode: number; uid: number; gid: number }
  ) {}

  /** `skip`: repository paths never listed nor touched (`.git`, the run's own folder). */
  static async take(root: string, skip: readonly string[]): Promise<TreeSnapshot> {
    const ignoreFiles = new Set<string>()
    const specials = new Map<string, string>()
    const folders = await listFolders(root, skip, ignoreFiles, specials)
    const { mode, uid, gid } = lstatSync(root)
    const top = { mode: mode & 0o7777, uid, gid }
    return new TreeSnapshot(root, skip, folders, await timeMark(root), ignoreFiles, specials, top)
  }

  /** What changed since the mark, listed once (the first call), once validation has ended. */
  private changed(): Promise<Stamps> {
    if (this.listing) return this.listing
    this.restoreTop()
    // How much each of the root's folders and theirs held: the finds after validation share
    // them by it.
    const weights = new Map<string, number>()
    for (const [path, folder] of this.folders)
      for (const prefix of path.split('/', 2).map((_, i, names) => names.slice(0, i + 1).join('/')))
        weights.set(prefix, (weights.get(prefix) ?? 0) + folder.size)
    this.listing = listChanged(this.root, this.skip, this.mark, openUp(), weights)
      .then(async (stamps) => {
        // A special file that stays stops the run at scope (before git looks); putBack still
        // puts the rest back (an ignore file validation rewrote among it).
        await this.removeSpecial(stamps).catch((error: unknown) => (this.stopped = error))
        return stamps
      })
      .finally(() => rmSync(dirname(this.mark), { recursive: true, force: true }))
    return this.listing
  }

  /**
   * The tree's own folder as it was, before git looks at it: validation that opened it to
   * everyone would leave it so for the job's later steps, and one that gave it to another user
   * (as root in the jail) has git refuse the tree as of dubious ownership.
   */
  private restoreTop(): void {
    const { mode, uid, gid } = lstatSync(this.root)
    if ((uid !== this.top.uid || gid !== this.top.gid) && process.getuid?.() === 0)
      chownSync(this.root, this.top.uid, this.top.gid)
    if ((mode & 0o7777) !== this.top.mode) chmodSync(this.root, this.top.mode)
  }

  /**
   * While validation is still going (before git resets or applies between two of its commands):
   * the special files it left so far removed (see removeSpecial).
   */
  async dropSpecialFiles(): Promise<void> {
    if (this.listing) return
    const { root, skip, mark } = this
    await this.removeSpecial(await listChangedFoldersAndSpecials(root, skip, mark, openUp()))
  }

  /**
   * The fifos, sockets and devices validation left (special-files.ts: those `changed` holds, and
   * those under a folder moved into view), removed before git looks at the tree; putBack names
   * them among what it removed.
   */
  private async removeSpecial(changed: Stamps): Promise<void> {
    const specials = await specialsLeft(this.root, this.skip, changed, this.folders)
    // One there before, still the same file (a hard link made to it changed its ctime): the user's.
    for (const [path, stamp] of specials) if (this.wasThere(path, stamp)) specials.delete(path)
    await removeSpecials(this.root, specials)
    for (const path of specials.keys()) this.specialRemoved.add(path)
    // Ignore rules changed (an ignore file made, rewritten, deleted, moved or replaced) can open
    // a folder git skipped to it, with what that folder held before the run.
    if (this.ignoreRulesChanged(changed)) await assertNoGitFileSpecials(this.root, this.skip)
  }

  private ignoreRulesChanged(changed: Stamps): boolean {
    // A fifo or the like made at the name is removed, and makes no rules.
    const named = (path: string, stamp: string) =>
      /(^|\/)\.gitignore$/.test(path) && !isSpecial(stamp)
    if ([...changed].some(([path, stamp]) => named(path, stamp))) return true
    return [...this.ignoreFiles].some((path) => {
      const name = text(path)
      try {
        return name === undefined || !lstatSync(join(this.root, name)).isFile()
      } catch {
        return true
      }
    })
  }

  /** A fifo, socket or device at `path` that was there before the run, the same file. */
  private wasThere(path: string, stamp: string): boolean {
    return isSpecial(stamp) && this.specials.get(path) === fileId(stamp)
  }

  /**
   * Once validation has ended: the paths (files or whole folders) outside which it changed
   * nothing git would report (for `git status`), or undefined for the whole tree.
   */
  async scope(git: GitRunner): Promise<string[] | undefined> {
    const changed = await this.changed()
    if (this.stopped) throw this.stopped
    this.scoped ??= changedScope(git, this.root, this.folders, changed)
    return this.scoped
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
    const unprivileged = openUp()
    let after = await this.changed()
    const spared = new Set<string>()
    const spare = (path: string) => {
      for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1))
        spared.add(path.slice(0, i))
      spared.add(path)
    }
    const spareKept = () => {
      for (const [path, stamp] of after) if (stamp[0] === 'f' && keep(text(path) ?? '')) spare(path)
    }
    // Only an approved file in the tree now, reached through folders, is spared: where the base
    // check took it away, what stands on its way is validation's (a folder it made, a program).
    for (const path of approved) if (walkPath(this.root, path).kind === 'file') spare(latin1(path))
    spareKept()
    // Folders not the ones there before that hold what is spared: all they hold is looked at.
    const whole = [...after]
      .filter(([path, stamp]) => stamp[0] === 'd' && this.folders.get(path)?.inode !== inode(stamp))
      .map(([path]) => path)
      .filter((path, i, all) => !all.slice(0, i).some((top) => path.startsWith(`${top}/`)))
      .filter((path) => spared.has(path))
    if (whole.length > 0) {
      after = await withAllUnder(this.root, after, whole, unprivileged)
      spareKept()
    }
    const inWhole = (path: string) => whole.some((top) => path.startsWith(`${top}/`))
    const tops: Array<[string, string]> = []
    const back: FolderBack[] = []
    let removing: string | undefined
    // find lists a folder before what it holds: what lies under a removed folder goes with it.
    for (const [path, stamp] of after) {
      if (removing !== undefined && path.startsWith(removing)) continue
      removing = undefined
      const was = this.folders.get(path)
      const isFolder = stamp[0] === 'd'
      if (isFolder && was?.inode === inode(stamp) && !inWhole(path)) {
        const mode = was.mode !== perm(stamp) || (unprivileged && !userRwx(was.mode))
        // As root validation could give a folder to another user, who could write in it later.
        const owner = unprivileged ? undefined : was.owner
        back.push({ path, inode: was.inode, mode: mode ? was.mode : undefined, owner })
        continue
      }
      if (spared.has(path) || this.wasThere(path, stamp)) continue
      if (isFolder && [...spared].some((s) => s.startsWith(`${path}/`))) continue
      tops.push([path, stamp])
      if (isFolder) removing = `${path}/`
    }
    await removeAll(this.root, tops)
    // Kept output runs in later steps as the one who runs it, never as its owner.
    for (const [path, stamp] of after) {
      const mode = Number.parseInt(perm(stamp), 8)
      const name = text(path)
      if (stamp[0] !== 'f' || !(mode & 0o6000) || name === undefined || !keep(name)) continue
      try {
        chmodSync(join(this.root, name), mode & 0o1777)
      } catch {
        // Gone with a folder, or past PATH_MAX: nothing a later step can run.
      }
    }
    // Deepest first: a folder validation closed is closed again only once all under it is done.
    await foldersBack(this.root, back.reverse())
    // Tracked files validation deleted (or that went with a folder) come back from the index.
    // A deleted file changed its folder's ctime: the folders listed, and the root, hold them all.
    const folders = [...after].filter(([, stamp]) => stamp[0] === 'd').map(([path]) => path)
    const removed = tops.map(([path]) => path)
    const gone = await deletedTracked(git, this.root, this.folders, [...folders, ...removed])
    await restoreTracked(git, [...removed, ...gone])
    // Not listed again: what is back (a tracked file checked out) is asked about alone.
    const outside = (path: string) => !removed.some((top) => path.startsWith(`${top}/`))
    return [...new Set([...removed, ...[...this.specialRemoved].filter(outside)])]
      .filter((path) => !present(this.root, path))
      .map((path) => text(path) ?? printableBytes(path))
  }
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

/** Tracked files among `paths` checked out from the index again (others are not git's). */
async function restoreTracked(git: GitRunner, paths: readonly string[]): Promise<void> {
  const names = paths.map(text).filter((name): name is string => name !== undefined)
  if (names.length === 0) return
  await git.exec(['checkout-index', '--force', '--quiet', '-z', '--stdin'], {
    input: `${names.join('\0')}\0`,
    allowFailure: true
  })
}
