import { isAbsolute, join, relative, sep } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'
import {
  RepoIntegrity,
  nulFields,
  restoreWorkTree,
  unstagedPaths,
  untrackedPaths
} from '../git/index.js'
import { assertExactChanges, unexpected } from './change-set.js'
import type { GuardedEdit } from './edit-guard.js'
import { printable, type PathPolicy } from './path-policy.js'
import { refState } from './ref-state.js'
import { EDITS_ONLY_GROUPS } from './protected-paths.js'
import type { GitRunner } from './repo-paths.js'
import { fileStamp, workTreeStatus, type StatusEntry } from './work-tree-status.js'

// Rules that make a file that validation left behind a problem, even though it is not staged.
const WATCHED_RULES = new Set(['protected-path', 'blocked-path', 'git-directory'])

/** More paths (or bytes of them) than this are asked about by a scan of the whole tree. */
const MOST_PATHSPECS = 1000
const MOST_PATHSPEC_BYTES = 64 * 1024

/**
 * What validation did to the work tree, when it ran on an overlay (the sandbox's
 * OverlayRecord): the watch asks git about these paths only, and needs no list from before.
 */
interface TouchedPaths {
  /** Files or whole folders validation created, changed or deleted. */
  readonly touched: ReadonlySet<string>
  /** Files there before validation that it deleted or replaced. */
  readonly removed: ReadonlySet<string>
  /** Names validation left that are not UTF-8 (never merged). */
  readonly unreadable: readonly string[]
  /** Files validation created, changed or deleted that were not carried into the tree. */
  readonly dropped?: ReadonlySet<string>
  /** The file was not there before validation. */
  isCreated(path: string): boolean
}

/**
 * Wraps the one step that runs repository code: before it, `.git/config`, hooks and the git
 * config files are hashed and the work tree's status is noted; after it, any change to those is
 * `repo-tampered`, and a staged change or a new or modified file in a protected or blocked path
 * is `unexpected-changes`. Either stops the run before the commit and the push.
 */
export class ValidationWatch {
  /**
   * The status assertClean took, once validation had ended: the settle that follows at once
   * reads it instead of scanning the work tree twice more (`diff`, `ls-files --others`).
   */
  private settled?: StatusEntry[]
  private keep: (path: string) => boolean = () => false
  private scope?: () => Promise<readonly string[] | undefined>

  private readonly before: ReadonlySet<string>
  /**
   * The files there before that lie in a protected or blocked path (the user's own untracked
   * files there), each with what its lstat said: validation may not change them either.
   */
  private readonly guarded = new Map<string, { rule: string; stamp: string }>()

  private constructor(
    private readonly integrity: RepoIntegrity,
    before: readonly string[],
    /** Paths under this prefix are the run's own (see start). */
    private readonly own: string | undefined,
    /** What validation touched, when it ran on an overlay: no scan of the whole work tree. */
    private readonly touched: TouchedPaths | undefined,
    private readonly refs: ReadonlyMap<string, string>,
    private readonly git: GitRunner,
    private readonly policy: PathPolicy,
    private readonly repoDir: string
  ) {
    this.before = new Set(before)
    for (const path of before) {
      const rule = watchedRule(policy, path)
      if (rule) this.guarded.set(path, { rule, stamp: fileStamp(repoDir, path) })
    }
  }

  /** There before validation ran, or written by the run itself: never validation's doing. */
  private notNew(path: string): boolean {
    if (this.ownPath(path)) return true
    return this.touched ? !this.touched.isCreated(path) : this.before.has(path)
  }

  private ownPath(path: string): boolean {
    return this.own !== undefined && path.startsWith(this.own)
  }

  /**
   * `before.untracked`: the untracked files found before the run changed anything (the
   * preflight's status), when nothing but the approved edits changed the work tree since: the
   * watch then starts without a scan of its own. `before.ownFolder`: a folder of the work tree
   * the run writes to itself (its logs; the jail hides it from validation): never validation's.
   * `before.touched`: validation runs on an overlay that records what it touched (no list from
   * before is needed).
   */
  static async start(
    repoDir: string,
    git: GitRunner,
    policy: PathPolicy,
    before: {
      untracked?: readonly string[]
      ownFolder?: string
      touched?: TouchedPaths
      /** Files validation may leave (`validation-keep`): never removed as its leftovers. */
      keep?: (path: string) => boolean
      /**
       * On the tree itself, once validation has ended: the paths (files or whole folders)
       * outside which it changed nothing (the snapshot's), or undefined for the whole tree.
       */
      scope?: () => Promise<readonly string[] | undefined>
    } = {}
  ): Promise<ValidationWatch> {
    const integrity = await RepoIntegrity.snapshot(repoDir)
    const [paths, refs] = await Promise.all([
      before.touched
        ? []
        : (before.untracked ?? workTreeStatus(git).then((status) => status.map((e) => e.path))),
      refState(git, repoDir)
    ])
    const folder = repoFolder(repoDir, before.ownFolder)
    const own = folder === undefined ? undefined : `${folder}/`
    const watch = new ValidationWatch(
      integrity,
      paths,
      own,
      before.touched,
      refs,
      git,
      policy,
      repoDir
    )
    watch.keep = before.keep ?? (() => false)
    watch.scope = before.scope
    return watch
  }

  /**
   * After a green validation: tracked files back to what is staged (the commit to be), and the
   * untracked files validation created removed (ignored build output stays), so the work tree a
   * pull-request step picks up is exactly the commit.
   */
  async settleWorkTree(): Promise<void> {
    const status = this.takeStatus()
    // Work tree unlike the index: what `git diff --name-only` lists.
    const dirty = status
      ? status.filter((e) => e.xy !== '??' && e.xy[1] !== ' ').map((e) => e.path)
      : await unstagedPaths(this.git)
    await restoreWorkTree(this.git, dirty, await this.created(status))
  }

  /**
   * The untracked, not ignored files that appeared while validation ran, removed: after a
   * failed validation too, so neither the next attempt nor the user finds them. Files that were
   * there before (the user's own) stay.
   */
  async removeCreatedFiles(): Promise<void> {
    await restoreWorkTree(this.git, [], await this.created(this.takeStatus()))
  }

  private async created(status: StatusEntry[] | undefined): Promise<string[]> {
    const untracked = status
      ? status.filter((e) => e.xy === '??').map((e) => e.path)
      : await untrackedPaths(this.git)
    return untracked.filter((path) => !this.notNew(path) && !this.keep(path))
  }

  /** The status assertClean took, once: any later settle scans the work tree again. */
  private takeStatus(): StatusEntry[] | undefined {
    const status = this.settled
    this.settled = undefined
    return status
  }

  /**
   * Throws when validation tampered with git or changed what it must not; `edits` as applied.
   * Returns the staged patch (assertExactChanges).
   */
  async assertClean(edits: readonly GuardedEdit[]): Promise<string> {
    this.settled = undefined
    // What the overlay did not carry counts too: a filter written into an included config file
    // of the work tree is tampering, though the file in the tree is as it was.
    const dropped = [...(this.touched?.dropped ?? [])].map((path) => join(this.repoDir, path))
    await this.integrity.assertUnchanged(dropped)
    // On the tree itself the snapshot lists what changed first, the tree's own folder put back
    // before any git looks (one given to another user is refused as of dubious ownership).
    if (!this.touched) await this.scope?.()
    await this.assertRefsUnchanged()
    const approved = new Set(edits.map((edit) => edit.path))
    const problems: string[] = []
    const status = await this.status()
    // On an overlay every path listed was touched: a file of the user's among them was changed.
    const skip = (path: string) =>
      approved.has(path) || (this.touched ? this.ownPath(path) : this.notNew(path))
    const changed = [
      ...status.map((entry) => entry.path),
      ...(this.touched?.removed ?? []),
      ...(await this.droppedInView((path) => !skip(path)))
    ]
    for (const path of new Set(changed)) {
      if (skip(path)) continue
      const rule = watchedRule(this.policy, path)
      if (rule) problems.push(`validation changed "${printable(path)}" (${rule})`)
    }
    for (const name of this.touched?.unreadable ?? [])
      problems.push(`validation left a name that is not UTF-8 ("${printable(name)}")`)
    for (const [path, { rule, stamp }] of this.guarded)
      if (fileStamp(this.repoDir, path) !== stamp)
        problems.push(`validation changed "${printable(path)}" (${rule})`)
    if (problems.length > 0) throw unexpected('validation', problems)
    const staged = await assertExactChanges(this.git, edits, 'validation')
    this.settled = status
    return staged
  }

  /**
   * The files validation wrote that the overlay did not carry, where the rules would have seen
   * them had they been (not ignored: git status would not have listed an ignored one either).
   */
  private async droppedInView(asked: (path: string) => boolean): Promise<string[]> {
    const watched = [...(this.touched?.dropped ?? [])].filter(
      (path) => asked(path) && watchedRule(this.policy, path)
    )
    if (watched.length === 0) return []
    const out = await this.git.exec(['check-ignore', '-z', '--stdin'], {
      input: `${watched.join('\0')}\0`,
      allowFailure: true
    })
    const ignored = new Set(nulFields(out.stdout))
    return watched.filter((path) => !ignored.has(path))
  }

  /**
   * The whole work tree's status, or that of the paths validation touched: on an overlay, those
   * it recorded (many of them: the whole tree's, cut down to them, so a file it did not touch is
   * never its own); on the tree itself, those the snapshot found changed (see TreeSnapshot.scope).
   */
  private async status(): Promise<StatusEntry[]> {
    const scope = this.touched ? undefined : await this.scope?.()
    const touched = this.touched?.touched ?? (scope && new Set(scope))
    if (!touched) return workTreeStatus(this.git)
    if (touched.size === 0) return []
    const bytes = [...touched].reduce((sum, path) => sum + Buffer.byteLength(path) + 1, 0)
    if (touched.size <= MOST_PATHSPECS && bytes <= MOST_PATHSPEC_BYTES)
      return workTreeStatus(this.git, [...touched])
    const under = (path: string) =>
      path.split('/').some((_, i, parts) => touched.has(parts.slice(0, i + 1).join('/')))
    return (await workTreeStatus(this.git)).filter((entry) => under(entry.path))
  }

  private async assertRefsUnchanged(): Promise<void> {
    const now = await refState(this.git, this.repoDir)
    const names = new Set([...this.refs.keys(), ...now.keys()])
    const changed = [...names].filter((name) => this.refs.get(name) !== now.get(name)).sort()
    if (changed.length === 0) return
    throw new SecurityViolationError(
      `Validation changed git's refs (${changed.slice(0, 5).join(', ')}); nothing is committed or pushed after that [rule repo-tampered].`,
      { rule: 'repo-tampered', stage: 'validation', changed: changed.slice(0, 20) }
    )
  }
}

/** The watched rule `path` falls under (a protected or blocked path, a git folder), if any. */
function watchedRule(policy: PathPolicy, path: string): string | undefined {
  const violation = policy.checkName(path) ?? policy.checkProtected(path)
  if (violation?.group && EDITS_ONLY_GROUPS.has(violation.group)) return undefined
  return violation && WATCHED_RULES.has(violation.rule) ? violation.rule : undefined
}

/** `folder` as a repository path ("logs"), when it lies inside the work tree. */
export function repoFolder(repoDir: string, folder: string | undefined): string | undefined {
  if (!folder) return undefined
  const rel = relative(repoDir, folder)
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined
  return rel.split(sep).join('/')
}
