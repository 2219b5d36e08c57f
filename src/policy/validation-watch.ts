import { lstatSync, readFileSync } from 'node:fs'
import { isAbsolute, join, relative, sep } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'
import { gitDirs, RepoIntegrity } from '../git/repo-integrity.js'
import { WORKTREE_SCAN } from '../git/status.js'
import {
  nulFields,
  restoreWorkTree,
  unstagedPaths,
  untrackedPaths
} from '../git/worktree-settle.js'
import { assertExactChanges, unexpected } from './change-set.js'
import type { GuardedEdit } from './edit-guard.js'
import { printable, type PathPolicy } from './path-policy.js'
import type { GitRunner } from './repo-paths.js'

// Rules that make a file that validation left behind a problem, even though it is not staged.
const WATCHED_RULES = new Set(['protected-path', 'blocked-path', 'git-directory'])

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
    return this.before.has(path) || (this.own !== undefined && path.startsWith(this.own))
  }

  /**
   * `before.untracked`: the untracked files found before the run changed anything (the
   * preflight's status), when nothing but the approved edits changed the work tree since: the
   * watch then starts without a scan of its own. `before.ownFolder`: a folder of the work tree
   * the run writes to itself (its logs; the jail hides it from validation): never validation's.
   */
  static async start(
    repoDir: string,
    git: GitRunner,
    policy: PathPolicy,
    before: { untracked?: readonly string[]; ownFolder?: string } = {}
  ): Promise<ValidationWatch> {
    const integrity = await RepoIntegrity.snapshot(repoDir)
    const [paths, refs] = await Promise.all([
      before.untracked ?? workTreeStatus(git).then((status) => status.map((e) => e.path)),
      refState(git, repoDir)
    ])
    const own = ownPrefix(repoDir, before.ownFolder)
    return new ValidationWatch(integrity, paths, own, refs, git, policy, repoDir)
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
    return untracked.filter((path) => !this.notNew(path))
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
    await this.integrity.assertUnchanged()
    await this.assertRefsUnchanged()
    const approved = new Set(edits.map((edit) => edit.path))
    const problems: string[] = []
    const status = await workTreeStatus(this.git)
    for (const { path } of status) {
      if (approved.has(path) || this.notNew(path)) continue
      const rule = watchedRule(this.policy, path)
      if (rule) problems.push(`validation changed "${printable(path)}" (${rule})`)
    }
    for (const [path, { rule, stamp }] of this.guarded)
      if (fileStamp(this.repoDir, path) !== stamp)
        problems.push(`validation changed "${printable(path)}" (${rule})`)
    if (problems.length > 0) throw unexpected('validation', problems)
    const staged = await assertExactChanges(this.git, edits, 'validation')
    this.settled = status
    return staged
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

/**
 * HEAD (what it points to and at), every ref and the stash list: validation that commits,
 * moves a branch or HEAD, or drops the user's stash is refused (the rollback that follows puts
 * the branch back; the user's stash is restored from its commit, which a drop does not delete).
 * One process: HEAD is read from its file (the ref it names, or the commit when detached; the
 * ref's own value is in the list), and the stash's reflog only when there is a stash (without
 * `refs/stash` there is no list to read, and a stash made or dropped changes the refs).
 */
async function refState(git: GitRunner, repoDir: string): Promise<Map<string, string>> {
  const refs = await git.exec(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)'])
  const state = new Map<string, string>()
  for (const line of refs.stdout.split('\n')) {
    const [name, sha, symref] = line.split('\0')
    if (name && sha !== undefined) state.set(name, `${sha} ${symref ?? ''}`)
  }
  state.set('HEAD', headFile(repoDir))
  const stash = state.has('refs/stash')
    ? await git.exec(['log', '--walk-reflogs', '--format=%H', 'refs/stash', '--'], {
        allowFailure: true
      })
    : undefined
  state.set('stash list', stash?.stdout.trim() ?? '')
  return state
}

function headFile(repoDir: string): string {
  try {
    return `file ${readFileSync(join(gitDirs(repoDir)[0]!, 'HEAD'), 'utf8')}`
  } catch (error) {
    return `unreadable ${(error as NodeJS.ErrnoException).code ?? ''}`
  }
}

interface StatusEntry {
  /** `git status --porcelain=v1`'s two letters: index, work tree ('??' untracked). */
  xy: string
  path: string
}

/** What git status reports: tracked changes and untracked files (not ignored ones). */
async function workTreeStatus(git: GitRunner): Promise<StatusEntry[]> {
  const out = await git.exec([
    ...WORKTREE_SCAN,
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    // A gitlink's folder may hold a repository validation made, with config of its own.
    '--ignore-submodules=all'
  ])
  return nulFields(out.stdout)
    .filter((field) => field.length > 3)
    .map((field) => ({ xy: field.slice(0, 2), path: field.slice(3) }))
}

/** The watched rule `path` falls under (a protected or blocked path, a git folder), if any. */
function watchedRule(policy: PathPolicy, path: string): string | undefined {
  const violation = policy.checkName(path) ?? policy.checkProtected(path)
  return violation && WATCHED_RULES.has(violation.rule) ? violation.rule : undefined
}

/** What changes whenever the file is written, replaced or removed (ctime cannot be set back). */
function fileStamp(repoDir: string, path: string): string {
  const stats = lstatSync(join(repoDir, path), { bigint: true, throwIfNoEntry: false })
  return stats
    ? `${stats.mode}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
    : 'missing'
}

/** `folder` as a repository path prefix ("logs/"), when it lies inside the work tree. */
function ownPrefix(repoDir: string, folder: string | undefined): string | undefined {
  if (!folder) return undefined
  const rel = relative(repoDir, folder)
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined
  return `${rel.split(sep).join('/')}/`
}
