import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'
import { configIncludes } from './config-includes.js'
import { gitDirs } from './git-dirs.js'
import { indexGitlinks } from './index-gitlinks.js'
import { newWalk, readable, walk, type Entry } from './repo-entries.js'
import { MOST_CONFIG_BYTES, readRegularFile } from './regular-file.js'

/** What a later git command reads as an operation in progress, or as the history's edge. */
const OPERATION_STATE = [
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'BISECT_START',
  'BISECT_LOG',
  'sequencer',
  'rebase-merge',
  'rebase-apply',
  'shallow',
  'worktrees'
]

const MAX_ENTRIES = 2_000
/** Folders closed inside closed folders, opened a level a round: at most this deep. */
const MOST_REOPENING_ROUNDS = 64
/** Around hooks the whole git folder is watched: its reflogs and loose refs may be many. */
const MAX_ENTRIES_WHOLE = 500_000
/**
 * Not watched with the whole folder: the object store (read-only to hooks, its alternates
 * watched by name) and the index (put back byte for byte by the hooked commit itself).
 */
const UNWATCHED_WHOLE = new Set(['objects', 'index'])

/**
 * Hashes of what turns a later git command into code execution: the repository's config and
 * every file it includes (a tracked `.gitconfig` too), hooks, info/ (attributes, excludes) and
 * alternates, and the global and system git config; with `refs`, also HEAD, refs and
 * packed-refs (around hooks, which may write them).
 * Taken before the step that runs repository code and compared after it; any change stops the
 * run (`repo-tampered`) before a commit or push could run with the token present.
 */
export class RepoIntegrity {
  private constructor(
    private readonly targets: readonly string[],
    private readonly entries: ReadonlyMap<string, Entry>,
    /** The repository's own git folders: one inside another's folder (a linked worktree's, in
     * the common `worktrees/`) is watched by its own names, not whole as part of that folder. */
    private readonly own: ReadonlySet<string>,
    private readonly limit: number,
    /** Each git folder's own mode: a command that closes `.git` itself hides all it holds. */
    private readonly ownModes: ReadonlyMap<string, number | undefined>
  ) {}

  /**
   * `whole`: every entry of the git folders (around hooks, which may write any of it), but the
   * object store, the index and the top-level names in `skip`.
   */
  static async snapshot(
    repoDir: string,
    extraFiles: readonly string[] = [],
    options: { whole?: boolean; skip?: readonly string[]; limit?: number } = {}
  ): Promise<RepoIntegrity> {
    const targets = [...watchedPaths(repoDir, options.whole, options.skip), ...extraFiles]
    const all = [...targets, ...submoduleGitDirs(repoDir)]
    const own = new Set(gitDirs(repoDir))
    const limit = options.limit ?? (options.whole ? MAX_ENTRIES_WHOLE : MAX_ENTRIES)
    const modes = new Map([...own].map((dir) => [dir, readable(() => lstatSync(dir).mode)]))
    return new RepoIntegrity(all, readAll(all, own, limit), own, limit, modes)
  }

  /** Whether every entry was watched (a folder past the entry limit leaves the rest unseen). */
  get complete(): boolean {
    return ![...this.entries.values()].some((entry) => entry.hash === 'limit')
  }

  /** A watched file's bytes at the snapshot. */
  before(path: string): Buffer | undefined {
    return this.entries.get(path)?.content
  }

  /** The watched entries that differ from the snapshot (added, removed or changed). */
  changes(): string[] {
    const now = readAll(this.targets, this.own, this.limit)
    const changed = new Set<string>()
    for (const [path, entry] of now)
      if (this.entries.get(path)?.hash !== entry.hash) changed.add(path)
    for (const path of this.entries.keys()) if (!now.has(path)) changed.add(path)
    return [...changed].sort()
  }

  /**
   * Git's folders a command closed, and each folder in them it closed (chmod 000, or readable
   * and not searchable), given their mode back (one it made: opened to its owner), round after
   * round until none is left closed: what they hold (a link put in a folder's place) is seen only
   * then, and nothing of the run writes through it unseen. Returns the folders opened.
   */
  reopen(): string[] {
    const opened: string[] = []
    const open = (path: string, mode: number) => {
      try {
        chmodSync(path, mode & 0o7777)
        opened.push(path)
        return true
      } catch {
        return false
      }
    }
    for (const [dir, mode] of [...this.ownModes].sort(([a], [b]) => a.length - b.length)) {
      const now = readable(() => lstatSync(dir))
      if (mode !== undefined && now?.isDirectory() && now.mode !== mode) open(dir, mode)
    }
    for (let round = 0; round < MOST_REOPENING_ROUNDS; round++) {
      let progress = false
      for (const [path, entry] of readAll(this.targets, this.own, this.limit)) {
        const before = this.entries.get(path)
        if (!entry.hash.endsWith(' unreadable') || before?.hash === entry.hash) continue
        const wasOpen = before?.hash.startsWith('dir') && !before.hash.endsWith(' unreadable')
        progress = open(path, wasOpen ? before!.mode : 0o700) || progress
      }
      if (!progress) break
    }
    return [...new Set(opened)]
  }

  /**
   * Puts every changed entry back as it was: the rollback's own git calls then run clean. What
   * is there now and was not, or is of another kind (a link over a folder), goes first, parents
   * first and never followed; then what was is made again, parents first: nothing is written
   * through a link a command left.
   */
  restore(): void {
    this.reopen()
    const now = readAll(this.targets, this.own, this.limit)
    const changed = this.changes()
    const folder = (entry?: Entry) => entry?.hash.startsWith('dir') === true
    for (const path of changed) {
      const before = this.entries.get(path)
      const current = now.get(path)
      if (!current || before?.fact || current.fact || (folder(before) && folder(current))) continue
      // A file known by its stat alone cannot be put back: reported, left (a link never is).
      if (
        before &&
        before.hash.startsWith('file') &&
        !before.content &&
        current.hash.startsWith('file')
      )
        continue
      rmSync(path, { recursive: true, force: true })
    }
    for (const path of changed) {
      const before = this.entries.get(path)
      if (!before || before.fact) continue
      try {
        if (before.link !== undefined) {
          rmSync(path, { force: true })
          symlinkSync(before.link, path)
        } else if (before.content !== undefined) {
          mkdirSync(dirname(path), { recursive: true })
          rmSync(path, { force: true })
          writeFileSync(path, before.content, { flag: 'wx' })
          chmodSync(path, before.mode & 0o7777)
        } else if (folder(before)) {
          mkdirSync(path, { recursive: true })
          chmodSync(path, before.mode & 0o7777)
        }
      } catch {
        // best effort: the run stops with repo-tampered either way
      }
    }
  }

  /**
   * Throws `repo-tampered` (after restoring what changed) when anything watched differs, or when
   * `written` (what a command wrote that never reached the tree: an overlay's dropped paths)
   * holds a watched entry or lies inside one.
   */
  async assertUnchanged(written: readonly string[] = []): Promise<void> {
    const watched = (path: string) =>
      this.targets.some((target) => path === target || path.startsWith(`${target}/`))
    const changed = [...this.changes(), ...written.filter(watched)]
    if (changed.length === 0) return
    this.restore()
    throw new SecurityViolationError(
      `Validation changed git's configuration or hooks (${changed.slice(0, 5).join(', ')}); ` +
        'nothing is committed or pushed after that [rule repo-tampered].',
      { rule: 'repo-tampered', stage: 'validation', changed: changed.slice(0, 20) }
    )
  }
}

function watchedPaths(repoDir: string, whole = false, skip: readonly string[] = []): string[] {
  const dirs = gitDirs(repoDir)
  const names = [
    'config',
    'config.worktree',
    'hooks',
    'info',
    'commondir',
    'objects/info/alternates',
    'objects/info/http-alternates',
    // Around hooks, which may write them: refs, and the state a later git command takes up (a
    // MERGE_HEAD makes the next commit a merge with a parent no one reviewed).
    ...(whole ? ['HEAD', 'refs', 'packed-refs', 'reftable', ...OPERATION_STATE] : []),
    // Submodules' git folders: config, hooks and info of repositories git may enter.
    'modules'
  ]
  const home = process.env.HOME || homedir()
  const xdg = process.env.XDG_CONFIG_HOME || join(home, '.config')
  return [
    ...dirs.flatMap((dir) =>
      (whole ? [...new Set([...names, ...topLevel(dir, skip)])] : names).map((name) =>
        join(dir, name)
      )
    ),
    ...configIncludes(repoDir),
    join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
    join(xdg, 'git', 'attributes'),
    '/etc/gitconfig',
    ...(process.env.GIT_CONFIG_GLOBAL ? [process.env.GIT_CONFIG_GLOBAL] : [])
  ]
}

/**
 * Where a repository inside the work tree would be found: `.git` in each gitlink's folder of
 * the index (as the index is at the snapshot), and the index's gitlink list itself.
 */
function submoduleGitDirs(repoDir: string): string[] {
  const index = join(gitDirs(repoDir)[0]!, 'index')
  const links = indexGitlinks(index, hashBytes(repoDir)) ?? []
  return [
    `${index}${GITLINKS}${hashBytes(repoDir)})`,
    ...links.filter((link) => !link.startsWith('<')).map((link) => join(repoDir, link, '.git'))
  ]
}

function hashBytes(repoDir: string): number {
  try {
    const config = readRegularFile(join(gitDirs(repoDir).at(-1)!, 'config'), MOST_CONFIG_BYTES)
    const text = Buffer.isBuffer(config) ? config.toString('utf8') : ''
    return /^\s*objectformat\s*=\s*"?sha256"?\s*$/im.test(text) ? 32 : 20
  } catch {
    return 20
  }
}

// `<index> (gitlinks <hash bytes>)`: the index's gitlink list, as one entry.
const GITLINKS = ' (gitlinks '

/** What a git folder holds at its top, to watch whole: all but the object store and index. */
function topLevel(dir: string, skip: readonly string[]): string[] {
  try {
    return readdirSync(dir).filter((name) => !UNWATCHED_WHOLE.has(name) && !skip.includes(name))
  } catch {
    return []
  }
}

function readAll(
  targets: readonly string[],
  own: ReadonlySet<string>,
  limit = MAX_ENTRIES
): Map<string, Entry> {
  const into = newWalk(own, limit)
  for (const target of targets) {
    const marker = target.lastIndexOf(GITLINKS)
    if (marker > 0) {
      const file = target.slice(0, marker)
      const bytes = Number.parseInt(target.slice(marker + GITLINKS.length), 10)
      const links = indexGitlinks(file, bytes) ?? []
      into.entries.set(target, { hash: `gitlinks ${links.join('\0')}`, mode: 0, fact: true })
    } else walk(target, into)
  }
  return into.entries
}
