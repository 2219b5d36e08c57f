import {
  chmodSync,
  chownSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  utimesSync,
  type Stats
} from 'node:fs'
import { dirname, join } from 'node:path'

/** The wrapper's listing: each folder of the upper and the entries the overlay showed in it. */
export interface Listing {
  folders: Map<string, Set<string>>
  /** Names that are not UTF-8: nothing is merged when there is one. */
  unreadable: string[]
}

/**
 * Which of a command's changes reach the work tree: files (regular files only, and deletions)
 * at paths it `carries`, reached through folders that `mayHold` one. The rest of the upper is
 * dropped. Without a rule everything is carried.
 */
export interface CarryRule {
  carries(path: string): boolean
  mayHold(folder: string): boolean
}

/**
 * Past this many bytes of path the wrapper lists no view of a folder (find cannot start at it);
 * the merge never carries anything into such a folder.
 */
export const LONGEST_LISTED = 3800

/** The set-user-ID and set-group-ID bits. */
const SET_ID = 0o6000

/** A dropped folder's files named one by one for the watch's rules, up to this many. */
const MOST_DROPPED_NAMED = 10_000
/** Past this many bytes a dropped path is named by its folder (a chain past PATH_MAX). */
const LONGEST_DROPPED_NAME = 2048

/**
 * What the commands of one attempt did to the work tree, merge by merge: the validation watch
 * asks git about these paths only.
 */
export class OverlayRecord {
  /** Repository paths (files or whole folders) a command created, changed or deleted. */
  readonly touched = new Set<string>()
  /** Where a command put something where nothing was before the attempt (a file or a folder). */
  private readonly created = new Set<string>()
  /** Files there before the attempt that a command deleted or replaced. */
  readonly removed = new Set<string>()
  /** Names a command left that are not UTF-8: never merged, reported. */
  readonly unreadable: string[] = []
  /**
   * Files a command created, changed or deleted that were not carried (the carry rule): the
   * watch's rules still see them (a protected file validation wrote is refused all the same).
   */
  readonly dropped = new Set<string>()
  /** The highest dropped paths: what the work tree would have gained had they been carried. */
  readonly droppedTops: string[] = []

  constructor(
    /** Repository paths never deleted in the work tree: git's folder, Patchsmith's own. */
    readonly keep: readonly string[],
    readonly carry?: CarryRule
  ) {}

  /** The file was not in the work tree before the attempt: a command made it. */
  isCreated(path: string): boolean {
    if (this.removed.has(path)) return false
    return [...ancestors(path)].some((folder) => this.created.has(folder))
  }

  noteCreated(path: string): void {
    this.touched.add(path)
    this.created.add(path)
  }

  noteRemoved(path: string, files: readonly string[]): void {
    this.touched.add(path)
    for (const file of files) if (!this.isCreated(file)) this.removed.add(file)
  }

  kept(path: string): boolean {
    return this.keep.some((folder) => path === folder || path.startsWith(`${folder}/`))
  }
}

/**
 * Carries what one command did in its overlay into the work tree, exactly: entries of the work
 * tree the overlay no longer showed are deleted, entries of the upper are moved in (a folder
 * the work tree also has is merged into, anything else replaces what was there). Renames only:
 * the upper lies on the work tree's file system. Nothing is followed: every path is checked
 * with lstat, and the work tree does not change meanwhile (the command's jail has ended).
 */
export function mergeOverlay(
  upper: string,
  workTree: string,
  listing: Listing,
  record: OverlayRecord
): void {
  // Checked before anything moves: a merge cut short leaves the tree half merged and unwatched.
  const unreadable =
    listing.unreadable.length > 0
      ? listing.unreadable
      : [...new Set(unnameable(upper, workTree, record))]
  if (unreadable.length > 0) {
    record.unreadable.push(...unreadable)
    return
  }
  const carry = record.carry
  const merge = (folder: string, dropping: boolean) => {
    const shown = listing.folders.get(folder)
    // A folder of the upper the wrapper did not list: the listing is not this upper's.
    if (!shown) throw new Error(`the overlay's listing lacks "${folder}"`)
    const inTree = join(workTree, folder)
    for (const name of readdirSync(inTree)) {
      const path = child(folder, name)
      if (shown.has(name) || record.kept(path)) continue
      if (!dropping && (!carry || carry.carries(path))) remove(workTree, path, record)
      else record.dropped.add(path)
    }
    for (const entry of readdirSync(join(upper, folder), { withFileTypes: true })) {
      const path = child(folder, entry.name)
      const from = lstatSync(join(upper, path))
      if (isWhiteout(from) || record.kept(path)) continue
      const there = lstatSync(join(workTree, path), { throwIfNoEntry: false })
      const carried = !dropping && (!carry || (from.isFile() && carry.carries(path)))
      const listed = Buffer.byteLength(path) + 2 < LONGEST_LISTED
      if (from.isDirectory() && there?.isDirectory()) {
        // Past what the wrapper lists nothing is carried, nor looked into: the folder is named.
        if (!listed) {
          drop(upper, path, from, record, false)
          continue
        }
        const enter = !dropping && (!carry || carry.mayHold(path))
        if (enter && (from.mode & 0o7777) !== (there.mode & 0o7777)) {
          chmodSync(join(workTree, path), from.mode & 0o7777)
          record.touched.add(path)
        }
        merge(path, !enter)
        continue
      }
      const partly = carry && !carried && from.isDirectory() && !there && !dropping
      if (partly && listed && carry.mayHold(path)) {
        // A folder only some of whose contents are carried: made in the tree, gone if empty.
        mkdirSync(join(workTree, path), from.mode & 0o7777)
        try {
          merge(path, false)
        } finally {
          // Also when a copy in it failed (a full disk): no empty folder is left behind.
          if (readdirSync(join(workTree, path)).length === 0) rmdirSync(join(workTree, path))
          else record.noteCreated(path)
        }
        continue
      }
      if (!carried) {
        drop(upper, path, from, record, !there)
        continue
      }
      // The copy first: one that fails (a full disk) leaves the tree's file where it was.
      const fresh = from.isFile() && from.size <= COPIED_UP_TO
      const source = fresh ? freshCopy(upper, path, from) : join(upper, path)
      // What is carried runs in later steps as the one who runs it, never as its owner.
      if (!fresh && from.mode & SET_ID) chmodSync(source, from.mode & 0o1777)
      if (there) remove(workTree, path, record)
      renameSync(source, join(workTree, path))
      // A folder where a file was, or a file where a folder was: every path under it is new
      // (what was there is in `removed`), as a file the classic watch's list never held.
      if (!there || from.isDirectory() !== there.isDirectory()) record.noteCreated(path)
      else record.touched.add(path)
    }
  }
  merge('', false)
}

/**
 * Up to this size a carried file is copied afresh; past it (build output) it is moved as it is:
 * a copy writes a sparse file's holes out, and a terabyte that takes no room in the upper would
 * fill the disk.
 */
const COPIED_UP_TO = 64 * 1024 * 1024

/**
 * A file of the upper as a new file, its content, mode, owner and times only: the upper's own carries
 * overlayfs's attributes (`trusted.overlay.origin`, set as it was copied up), which are not the
 * approved change's. Made beside the upper (the overlay's own folder, which no command sees), on
 * the work tree's file system, so the rename into the tree stays one step.
 */
function freshCopy(upper: string, path: string, stats: Stats): string {
  const copy = join(dirname(upper), 'carrying')
  rmSync(copy, { force: true })
  copyFileSync(join(upper, path), copy, constants.COPYFILE_EXCL)
  chownSync(copy, stats.uid, stats.gid)
  chmodSync(copy, stats.mode & 0o1777)
  utimesSync(copy, stats.atime, stats.mtime)
  return copy
}

/**
 * A path of the upper not carried: named for the watch's rules (each file under a folder, up to
 * a bound), and as a top when the work tree has nothing there (validation made it).
 */
function drop(upper: string, path: string, stats: Stats, record: OverlayRecord, isNew: boolean) {
  if (isNew) record.droppedTops.push(path)
  if (!stats.isDirectory() || Buffer.byteLength(path) > LONGEST_DROPPED_NAME) {
    record.dropped.add(path)
    return
  }
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(upper, folder), { withFileTypes: true })) {
      const inner = child(folder, entry.name)
      if (record.dropped.size >= MOST_DROPPED_NAMED) return
      if (!entry.isDirectory()) record.dropped.add(inner)
      else if (Buffer.byteLength(inner) > LONGEST_DROPPED_NAME) record.dropped.add(inner)
      else walk(inner)
    }
  }
  walk(path)
}

/**
 * Names that are not UTF-8 where the merge goes, which the listing cannot hold: a deleted
 * entry's (a whiteout in the upper, or one in the tree under a folder made again).
 */
function unnameable(upper: string, workTree: string, record: OverlayRecord, folder = ''): string[] {
  const names = (root: string) => readdirSync(join(root, folder), { encoding: 'buffer' })
  const named = (name: Buffer) => child(folder, name.toString())
  const found = names(workTree)
    .filter((name) => utf8(name) === undefined)
    .map(named)
  for (const name of names(upper)) {
    const text = utf8(name)
    if (text === undefined) found.push(named(name))
    const path = text === undefined ? undefined : child(folder, text)
    if (path === undefined || record.kept(path)) continue
    const there = lstatSync(join(workTree, path), { throwIfNoEntry: false })
    if (lstatSync(join(upper, path)).isDirectory() && there?.isDirectory())
      found.push(...unnameable(upper, workTree, record, path))
  }
  return found
}

const strict = new TextDecoder('utf-8', { fatal: true })

/** The name, unless it is not UTF-8 (Node's paths could not name it). */
export function utf8(bytes: Buffer): string | undefined {
  try {
    return strict.decode(bytes)
  } catch {
    return undefined
  }
}

/** Deletes `path` from the work tree (a whole folder without following a link in it). */
function remove(workTree: string, path: string, record: OverlayRecord): void {
  const full = join(workTree, path)
  const files = lstatSync(full).isDirectory() ? filesUnder(workTree, path) : [path]
  record.noteRemoved(path, files)
  rmSync(full, { recursive: true, force: true })
}

function filesUnder(workTree: string, folder: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(join(workTree, folder), { withFileTypes: true })) {
    const path = child(folder, entry.name)
    if (entry.isDirectory()) files.push(...filesUnder(workTree, path))
    else files.push(path)
  }
  return files
}

/** overlayfs marks a deletion with a character device 0:0. */
function isWhiteout(stats: Stats): boolean {
  return stats.isCharacterDevice() && stats.rdev === 0
}

function child(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name
}

function* ancestors(path: string): Generator<string> {
  const parts = path.split('/')
  for (let i = 1; i <= parts.length; i++) yield parts.slice(0, i).join('/')
}
