import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { Minimatch } from 'minimatch'
import { regularFiles, repoFolder, TreeSnapshot, type GitRunner } from '../policy/index.js'
import { untrackedPaths } from '../git/index.js'
import type { CarryRule, TreeOverlay } from '../sandbox/index.js'
import type { CommandRunner } from './commands.js'
import type { Logger } from '../run/index.js'

/** At most this many paths are named in the result; the count is always whole. */
const MOST_NAMED = 50

/**
 * What the run removed after validation because validation (the base check, auto-fixes,
 * the reproduction's base runs) left it and it is not the approved change: the result's
 * `metrics.removed_after_validation`.
 */
export class RemovedAfterValidation {
  private readonly paths = new Set<string>()

  add(paths: Iterable<string>): void {
    for (const path of paths) this.paths.add(path)
  }

  /** For the metrics: undefined when nothing was removed. */
  get metric(): { count: number; paths: string[] } | undefined {
    if (this.paths.size === 0) return undefined
    return { count: this.paths.size, paths: [...this.paths].sort().slice(0, MOST_NAMED) }
  }
}

/** `validation-keep`: build output validation may leave (regular files only). */
export function keepMatcher(globs: readonly string[] = []): (path: string) => boolean {
  const matchers = globs.map((glob) => new Minimatch(glob, { dot: true }))
  return (path) => path !== '' && matchers.some((m) => m.match(path))
}

/**
 * Whether `folder` could hold a path `globs` match (the overlay's merge enters such a folder
 * the work tree does not have yet).
 */
function keepMayHold(globs: readonly string[] = []): (folder: string) => boolean {
  const matchers = globs.map((glob) => new Minimatch(glob, { dot: true }))
  return (folder) => matchers.some((m) => m.match(folder, true))
}

/**
 * The work tree put back after repository code ran, whatever happened: on an overlay nothing
 * but the carried paths reached the tree (what was dropped is named); on the tree itself, a
 * snapshot taken before is compared after, and what is neither the approved change nor kept
 * is removed or checked out again.
 */
class ValidationLeftovers {
  private constructor(
    private readonly repoDir: string,
    private readonly snapshot: TreeSnapshot | undefined,
    private readonly overlay: TreeOverlay | undefined
  ) {}

  static async start(
    repoDir: string,
    overlay: TreeOverlay | undefined,
    own: string | undefined
  ): Promise<ValidationLeftovers> {
    const snapshot = overlay
      ? undefined
      : await TreeSnapshot.take(repoDir, ['.git', ...(own ? [own] : [])])
    return new ValidationLeftovers(repoDir, snapshot, overlay)
  }

  /**
   * Once the round has ended, on the tree itself: the paths outside which it changed nothing
   * (ValidationWatch's `scope`); undefined on an overlay, or for the whole tree.
   */
  async scope(git: GitRunner): Promise<readonly string[] | undefined> {
    return this.snapshot?.scope(git)
  }

  /** Between two commands of the round, on the tree itself: see TreeSnapshot.dropSpecialFiles. */
  async dropSpecialFiles(): Promise<void> {
    await this.snapshot?.dropSpecialFiles()
  }

  /** Puts the tree back; `approved`: the change's paths, as they are now. */
  async putBack(
    git: GitRunner,
    approved: readonly string[],
    keep: readonly string[] | undefined,
    removed: RemovedAfterValidation | undefined
  ): Promise<void> {
    if (this.snapshot) {
      removed?.add(await this.snapshot.putBack(git, approved, keepMatcher(keep)))
      return
    }
    // What the overlay dropped and is not in the tree: validation made it (a change to a file
    // that was there was simply not carried, so the file is as it was).
    const dropped = this.overlay?.record.droppedTops ?? []
    removed?.add(dropped.filter((path) => !exists(join(this.repoDir, path))))
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** What the guard around repository code needs of the attempt's settings. */
interface GuardSettings {
  runner: CommandRunner
  log: { dir: string }
  branch: { git: GitRunner; untrackedAtStart(): Promise<readonly string[] | undefined> }
  validationKeep?: readonly string[]
  removed?: RemovedAfterValidation
  logger: Logger
}

/**
 * Around one round of repository code (validation, the base runs): the overlay its commands
 * run on (carrying only the approved paths, the user's own untracked files and
 * `validation-keep`), or a snapshot of the tree; `putBack` afterwards, however the round ended.
 */
export async function guardTree(settings: GuardSettings, approved: readonly string[]) {
  const cwd = settings.runner.cwd
  const own = repoFolder(cwd, settings.log.dir)
  const keep = settings.validationKeep ?? []
  const overlay = settings.runner.overlay
    ? settings.runner.overlay(
        own ? [own] : [],
        carryRule([...approved, ...(await usersFiles(settings.branch))], keep)
      )
    : undefined
  const leftovers = await ValidationLeftovers.start(cwd, overlay, own)
  let done = false
  return {
    overlay,
    /** For ValidationWatch: where the round changed anything (see ValidationLeftovers.scope). */
    scope: () => leftovers.scope(settings.branch.git),
    /** Before git looks at the tree while the round goes on (a base check, a fix kept). */
    dropSpecialFiles: () => leftovers.dropSpecialFiles(),
    /** The tree put back once (later calls do nothing); `now`: the approved paths as they are. */
    async putBack(now: readonly string[] = approved): Promise<void> {
      if (done) return
      done = true
      await leftovers.putBack(settings.branch.git, now, keep, settings.removed)
    }
  }
}

/**
 * Before the commit with the repository's hooks (repository code too, on the tree itself): a
 * snapshot of the tree. The function it returns, called once git has ended, puts back what the
 * hooks left (files, fifos, folders past PATH_MAX, ignored ones too) but for the approved
 * paths and the files there before, before git looks at the tree again, and says what it
 * removed.
 */
export async function guardHooks(
  repoDir: string,
  git: GitRunner,
  approved: readonly string[],
  logDir: string | undefined,
  logger: Logger
): Promise<() => Promise<void>> {
  const own = repoFolder(repoDir, logDir)
  const skip = ['.git', ...(own ? [own] : [])]
  const snapshot = await TreeSnapshot.take(repoDir, skip)
  // A file there before (the user's untracked or ignored one) is never removed, whatever a hook
  // did to it; a tracked one is checked out again after the commit (settleWorkTree, rollback).
  const there = await regularFiles(repoDir, skip)
  return async () => {
    const removed = await snapshot.putBack(git, approved, (path) => there.has(path))
    if (removed.length > 0)
      logger.warn(
        `The commit hooks left ${removed.length} path(s) in the work tree, removed: ${removed.slice(0, 10).join(', ')}`
      )
  }
}

/** The untracked, not ignored files of the user's (the preflight's list, or git's now). */
async function usersFiles(branch: GuardSettings['branch']): Promise<readonly string[]> {
  return (await branch.untrackedAtStart()) ?? untrackedPaths(branch.git)
}

/** The overlay carries these files (and `keep`'s), through the folders that hold them. */
function carryRule(files: readonly string[], keep: readonly string[]): CarryRule {
  const carried = new Set(files)
  const folders = new Set<string>()
  for (const path of files)
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1))
      folders.add(path.slice(0, i))
  const kept = keepMatcher(keep)
  const mayHoldKept = keepMayHold(keep)
  return {
    carries: (path) => carried.has(path) || kept(path),
    mayHold: (folder) => folders.has(folder) || mayHoldKept(folder)
  }
}
