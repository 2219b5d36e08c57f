import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync, readFileSync, rmSync, statfsSync } from 'node:fs'
import { PatchsmithError } from '../contract/index.js'
import { join } from 'node:path'
import { HOST_ENV } from './environment.js'
import type { Programs, SpawnSpec } from './jail-command.js'
import {
  LONGEST_LISTED,
  mergeOverlay,
  OverlayRecord,
  utf8,
  type CarryRule,
  type Listing
} from './overlay-merge.js'

/**
 * The wrapper a command's jail starts in when the work tree is an overlay: a mount namespace
 * of its own where the work tree is mounted over itself (lower: the work tree, upper: a fresh
 * folder outside it), so nothing the command does reaches the work tree itself. The jail is
 * built inside that namespace as usual: its bind of the work tree binds the overlay. After the
 * jail has ended (its PID namespace with it), the wrapper lists the overlay's view of every
 * folder the upper holds (NUL-separated: `D<folder>` for each, then `E<folder>/<name>` for each
 * entry the overlay shows there, then `Z`), from which
 * the merge tells what was deleted: overlayfs keeps deletions in xattrs Node cannot read.
 * `metacopy=off`: a chmod must copy the whole file up, never a data-less upper file.
 * `redirect_dir=off`: renaming a folder of the lower fails (EXDEV) and tools copy instead, so no
 * upper folder stands for another path.
 */
const WRAPPER = [
  'set -e',
  'W=$1 U=$2 K=$3 L=$4 MOUNT=$5 FIND=$6 G=$7',
  'shift 7',
  // git's own folder (the hooked commit), opened before the overlay hides it and bound back over
  // the overlay's view of it: what git writes reaches the repository, the rest stays above.
  // Recursively: the mounts over it (its read-only object store, config covers) come along.
  '[ -z "$G" ] || exec 4< "$G"',
  '"$MOUNT" -t overlay overlay -o "lowerdir=$W,upperdir=$U,workdir=$K,index=off,redirect_dir=off,metacopy=off" "$W" || { echo "patchsmith: the overlay of the work tree could not be mounted (validation-overlay: false runs commands on the tree itself)" >&2; exit 125; }',
  '[ -z "$G" ] || { "$MOUNT" --no-canonicalize --rbind /proc/self/fd/4 "$G" && exec 4<&-; } || { echo "patchsmith: git\'s folder could not be bound through the overlay of the work tree" >&2; exit 125; }',
  // The folder this shell started in is the tree's own, under the mount now: enter the overlay.
  'cd "$(pwd -P)"',
  'set +e',
  '"$@"',
  'rc=$?',
  'cd "$U" || exit 125',
  'if [ -n "$("$FIND" . -mindepth 1 -maxdepth 1 -print -quit)" ]; then',
  // Every folder of the upper, then what the overlay shows in each: one find per batch of
  // folders (their names start with ./, so none is taken for an expression). A folder whose
  // path is too long for find to start at (a chain past PATH_MAX) gets no view: the merge
  // never carries into it (LONGEST_LISTED).
  '  "$FIND" . -type d -printf "D%p\\0" > "$L" || exit 125',
  `  "$FIND" . -type d -exec /bin/sh -c 'f=$0; cd "$1" && shift; n=$#; while [ $n -gt 0 ]; do d=$1; shift; [ \${#d} -lt ${LONGEST_LISTED} ] && set -- "$@" "$d"; n=$((n-1)); done; [ $# -eq 0 ] || exec "$f" "$@" -mindepth 1 -maxdepth 1 -printf "E%h/%f\\0"' "$FIND" "$W" {} + >> "$L" || exit 125`,
  // The end mark: a listing cut short (the wrapper killed while writing) is no listing.
  '  printf "Z\\0" >> "$L" || exit 125',
  // Nothing written: an empty listing, so a listing's absence always means the wrapper failed.
  'else',
  '  printf "Z\\0" > "$L" || exit 125',
  'fi',
  'exit $rc'
].join('\n')

/** The wrapper's own failure (a command's own 125 still comes with a listing). */
const OVERLAY_FAILED = 125
/** Free bytes under which the disk under the overlay counts as full. */
const FULL_BELOW = 256 * 1024

/** Overlay options are separated by commas and colons; a path holding one cannot be named. */
const UNNAMEABLE = /[,:\\\n]/

/**
 * The work tree as an overlay for each validation command of one attempt: the command writes
 * into an upper folder of its own; once it has ended, what it did is carried into the work tree
 * exactly (overlay-merge.ts) and recorded, so the validation watch knows every path validation
 * touched without scanning the whole work tree. A command killed before the wrapper listed its
 * view (a cancelled run, a time-out) leaves nothing in the work tree.
 */
export class TreeOverlay {
  readonly record: OverlayRecord
  private count = 0

  private constructor(
    private readonly folder: string,
    readonly workTree: string,
    private readonly programs: Required<Pick<Programs, 'unshare' | 'mount' | 'find'>>,
    /** Repository paths the merge never deletes in the work tree (Patchsmith's own folders). */
    keep: readonly string[],
    carry: CarryRule | undefined,
    /** The repository's `.git` folder, written through the overlay (the hooked commit). */
    private readonly gitThrough = ''
  ) {
    this.record = new OverlayRecord(['.git', ...keep], carry)
  }

  /**
   * An overlay whose folders lie in `folder`, when the work tree can be one here: as root, with
   * unshare and mount, the folder on the work tree's file system (the merge renames), and paths
   * an overlay's options can name. `carry`: which changes reach the work tree (all without).
   */
  static create(
    folder: string,
    workTree: string,
    programs: Programs,
    keep: readonly string[] = [],
    carry?: CarryRule,
    gitThrough?: string
  ): TreeOverlay | undefined {
    const { unshare, mount, find } = programs
    if (process.getuid?.() !== 0 || !unshare || !mount || !find) return undefined
    if (UNNAMEABLE.test(workTree) || UNNAMEABLE.test(folder)) return undefined
    const device = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.dev
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    if (device(folder) === undefined || device(folder) !== device(workTree)) return undefined
    return new TreeOverlay(folder, workTree, { unshare, mount, find }, keep, carry, gitThrough)
  }

  /** `spec` (the jail) started inside a fresh overlay of the work tree. */
  wrap(spec: SpawnSpec): SpawnSpec {
    const dirs = this.fresh()
    return {
      file: this.programs.unshare,
      args: [
        '--mount',
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        WRAPPER,
        'patchsmith-overlay',
        this.workTree,
        dirs.upper,
        dirs.work,
        dirs.listing,
        this.programs.mount,
        this.programs.find,
        this.gitThrough,
        spec.file,
        ...spec.args
      ],
      env: spec.env,
      covers: spec.covers
    }
  }

  /**
   * After the command wrapped last has ended: what it did carried into the work tree and
   * recorded, or (`discard`, or no listing: it was killed) dropped. A wrapper that ended on its
   * own with OVERLAY_FAILED and no listing could not mount or list the overlay (a full disk):
   * that is thrown, never taken for the command's exit status.
   */
  settle(discard = false, exitCode?: number | null): void {
    const dirs = this.current()
    try {
      const listing = readListing(dirs.listing)
      // An empty listing: the command wrote nothing.
      const wrote = !!listing && (listing.folders.size > 0 || listing.unreadable.length > 0)
      if (!discard && wrote) mergeOverlay(dirs.upper, this.workTree, listing, this.record)
      if (!discard && !listing && exitCode === OVERLAY_FAILED) throw this.failure()
    } finally {
      this.remove(dirs.root)
    }
  }

  /** Where the command wrapped last wrote (each changed file whole), until `settle`. */
  get upperFolder(): string {
    return this.current().upper
  }

  dispose(): void {
    this.remove(this.folder)
  }

  /**
   * A folder of the overlay's gone, however deep the command nested the upper: past a path's
   * length Node's removal throws (and the run with it, before its result is written), while
   * find deletes from inside each folder.
   */
  private remove(folder: string): void {
    try {
      rmSync(folder, { recursive: true, force: true })
    } catch {
      execFileSync(this.programs.find, [folder, '-delete'], { stdio: 'ignore', env: HOST_ENV })
    }
  }

  /**
   * Why the wrapper failed: the disk under the overlay out of space or of inodes (the command's
   * own writes count), else the overlay itself.
   */
  private failure(): Error {
    let full = false
    try {
      const stats = statfsSync(this.folder)
      full = stats.bavail * stats.bsize < FULL_BELOW || (stats.files > 0 && stats.ffree < 16)
    } catch {
      // No figure: the overlay's own failure below.
    }
    if (full)
      return Object.assign(
        new Error(
          'ENOSPC: no space or inodes left on the disk under the overlay, which holds what the validation command wrote'
        ),
        { code: 'ENOSPC', path: this.folder }
      )
    return new PatchsmithError(
      'ENVIRONMENT_ERROR',
      `The overlay of the work tree around a validation command could not be mounted or listed (the command's output says why); nothing it did was kept. Set validation-overlay: false to run commands on the tree itself.`,
      { path: this.folder },
      true
    )
  }

  private fresh() {
    this.count++
    const dirs = this.current()
    this.remove(dirs.root)
    mkdirSync(dirs.upper, { recursive: true, mode: 0o755 })
    mkdirSync(dirs.work, { mode: 0o700 })
    return dirs
  }

  private current() {
    const root = join(this.folder, String(this.count))
    return {
      root,
      upper: join(root, 'upper'),
      work: join(root, 'work'),
      listing: join(root, 'listing')
    }
  }
}

/** The wrapper's listing: each folder of the upper, and the entries the overlay showed in it. */
function readListing(file: string): Listing | undefined {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return undefined
  }
  const fields: Buffer[] = []
  for (let start = 0, end; (end = bytes.indexOf(0, start)) >= 0; start = end + 1)
    fields.push(bytes.subarray(start, end))
  if (fields.at(-1)?.toString() !== 'Z') return undefined
  const listing: Listing = { folders: new Map(), unreadable: [] }
  const folder = (path: string) => (path === '.' ? '' : path.slice(2))
  for (const field of fields.slice(0, -1)) {
    const name = utf8(field.subarray(1))
    if (name === undefined) {
      listing.unreadable.push(field.subarray(1).toString())
      continue
    }
    if (field[0] === 0x44 /* D */) listing.folders.set(folder(name), new Set())
    else {
      const slash = name.lastIndexOf('/')
      listing.folders.get(folder(name.slice(0, slash)))?.add(name.slice(slash + 1))
    }
  }
  return listing
}
