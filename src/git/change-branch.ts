import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { BranchExistsError, GitConflictError, InvalidInputError } from '../contract/index.js'
import { GitCommandError, type BranchCommit, type Git, type GitOutput } from './git.js'
import { patchId } from './patch-id.js'
import { gitDirs } from './git-dirs.js'
import type { PushAuth } from './push-auth.js'
import { commitApproved, type ApprovedFile } from './approved-commit.js'
import { commitWithHooks } from './hooked-commit.js'
import { pushError, pushPermissionError, remoteReadError } from './remote-errors.js'
import type { JournalRecord, RunJournal } from './run-journal.js'
import type { RepoStatus } from './status.js'

const REMOTE = 'origin'
const BRANCH_NAME = /^(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/
const MAX_EXISTING_COMMITS = 100

export interface ChangeBranchOptions {
  branch: string
  /** The branch to start from; the checked-out branch when absent. */
  baseBranch?: string
  /**
   * true (default): the commit goes on the plan's branch, which is pushed. false: it goes on the
   * base branch, unpushed, where a pull-request step (create-pull-request) picks it up.
   */
  push?: boolean
  /** Credentials for the commands that talk to origin. */
  auth?: PushAuth
  /** The plan's paths: uncommitted changes to them are refused, others are stashed. */
  plannedPaths?: readonly string[]
  /** Branches the change must never go to (the repository's default branch). */
  protectedBranches?: readonly string[]
  /** Where each change to the repository is recorded first, for a run that dies (SIGKILL). */
  journal?: RunJournal
}

/** One commit to make: the message and the files of the index it holds. */
export interface CommitRequest {
  message: string
  /** The patch of these files, applied to the index when the change is split into commits. */
  patch: string
  paths: readonly string[]
  /**
   * git's patch of the whole index against HEAD, taken after the last change to the index. A
   * single commit without hooks is exactly that index, so this is its patch: no second process.
   */
  staged?: string
  /**
   * The approved contents of `paths`: without hooks the commit's tree is built from these in a
   * private index (commitApproved), never from the shared index validation ran beside.
   */
  files?: readonly ApprovedFile[]
}

/** A commit on the branch, as git has it. */
export interface MadeCommit {
  sha: string
  message: string
  /** `git patch-id --stable` of the commit. */
  patchId: string
  /** The commit's patch as git renders it. */
  diff: string
}

interface ExistingBranch {
  tip: string
  local: boolean
  remote: boolean
  commits: BranchCommit[]
}

/**
 * The git side of one change: prepared from the base, patches applied and undone, committed
 * (or an identical earlier commit reused), pushed, and rolled back so that the repository and
 * the user's uncommitted work are as they were found.
 */
export class ChangeBranch {
  /** An earlier run's branch holding this change: reused instead of a second commit. */
  reused = false
  private baseSha: string
  private existing?: ExistingBranch
  private stash?: string
  private onBranch = false
  private createdLocal = false
  private pushed = false
  private worktreeChanged = false
  private baseMoved = false
  private leftStart = false
  private readonly touched = new Set<string>()
  private stashMessage?: string
  private readonly commits: string[] = []
  private pushing = false
  /** The branch's local tip before the run, or null once the run knows it was absent. */
  private localBefore?: string | null
  private readonly started = new Date().toISOString()

  private constructor(
    readonly git: Git,
    readonly branch: string,
    readonly base: string,
    startSha: string,
    private readonly startBranch: string | undefined,
    private readonly status: RepoStatus,
    private readonly options: ChangeBranchOptions,
    /** The branch's tip on origin (when pushing) or here (when not), as found by prepare. */
    private readonly found: { remote?: string; local?: string }
  ) {
    this.baseSha = startSha
  }

  /** The commit the change is made on. */
  get baseCommit(): string {
    return this.baseSha
  }

  get push(): boolean {
    return this.options.push ?? true
  }

  /** Credentials for remote commands, registered as a secret by the caller. */
  get authSecret(): string | undefined {
    return this.options.auth?.secret
  }

  /**
   * Everything that can refuse the run before anything changes: the branch name, the state of
   * the work tree, and (when pushing) whether origin can be read and already has the branch.
   */
  static async prepare(git: Git, options: ChangeBranchOptions): Promise<ChangeBranch> {
    const { branch } = options
    assertBranchName(branch)
    const push = options.push ?? true
    // Read-only, so started together; their failures are still reported in this order.
    const [read, remote, local, pushable] = await Promise.allSettled([
      git.status(),
      push ? git.remoteHeads(REMOTE, branch, options.auth?.env) : undefined,
      push ? undefined : git.tryRevParse(`refs/heads/${branch}`),
      push ? git.pushDryRun(REMOTE, `HEAD:refs/heads/${branch}`, options.auth?.env) : undefined
    ])
    let status: RepoStatus
    try {
      status = settled(read)
    } catch (error) {
      if (!(error instanceof GitCommandError)) throw error
      throw new InvalidInputError(`${git.dir} is not a git repository with a work tree.`, {
        field: 'repo',
        stderr: error.output.stderr.trim()
      })
    }
    if (!status.head) {
      throw new InvalidInputError('The repository has no commit to start from.', { field: 'repo' })
    }
    if (status.unmerged.length > 0) {
      throw new GitConflictError(
        'The repository is in the middle of a merge, rebase or cherry-pick with unmerged paths; resolve it first.',
        { rule: 'unmerged-paths', paths: status.unmerged.slice(0, 20) },
        false
      )
    }
    const operation = operationInProgress(git.dir)
    if (operation) {
      throw new GitConflictError(
        `A ${operation} is in progress in this repository; finish it or abort it (git ${operation} --continue or --abort) before a run, so nothing of it is lost.`,
        { rule: 'operation-in-progress', operation },
        false
      )
    }
    const base = options.baseBranch || status.branch
    if (!base) {
      throw new InvalidInputError(
        'HEAD is detached: set "base-branch" to the branch the change starts from.',
        { field: 'base-branch' }
      )
    }
    const planned = new Set(options.plannedPaths ?? [])
    const overlap = status.changed.filter((entry) => planned.has(entry.path))
    if (overlap.length > 0) {
      throw new GitConflictError(
        `Uncommitted changes to files the plan changes (${overlap.map((e) => e.path).join(', ')}); commit or stash them first so nothing of yours is lost.`,
        { rule: 'dirty-worktree', paths: overlap.map((e) => e.path).slice(0, 20) },
        false
      )
    }
    const refuse = () =>
      new InvalidInputError(
        `The plan's branch "${branch}" is the base or default branch; refusing to commit onto it.`,
        { field: 'fix_plan.branch_name', rule: 'base-branch' }
      )
    if ([base, ...(options.protectedBranches ?? [])].includes(branch)) throw refuse()
    let remoteTip: string | undefined
    if (push) {
      let heads
      try {
        heads = settled(remote)!
      } catch (error) {
        if (!(error instanceof GitCommandError)) throw error
        throw remoteReadError(REMOTE, error.output.stderr, await git.remoteUrl(REMOTE))
      }
      if (heads.defaultBranch === branch) throw refuse()
      remoteTip = heads.tip
      // Before any model call: a remote that can be read but not pushed to (a read-only token).
      const trial = settled(pushable)
      // The URL (one more process) only to name the remote in a refusal.
      if (trial && trial.exitCode !== 0) {
        const refused = pushPermissionError(REMOTE, trial, await git.remoteUrl(REMOTE))
        if (refused) throw refused
      }
    }
    return new ChangeBranch(git, branch, base, status.head, status.branch, status, options, {
      remote: remoteTip,
      local: settled(local)
    })
  }

  /**
   * Sets the repository up for the change: the user's other uncommitted changes stashed, the
   * base checked out, and the plan's branch created (when pushing) or checked for (when not).
   * A branch that exists already is reused only if it holds this very change; anything else on
   * it is BRANCH_EXISTS.
   */
  async create(): Promise<void> {
    if (this.status.changed.length > 0) {
      this.stashMessage = `patchsmith: uncommitted changes before ${this.branch}`
      this.save()
      this.stash = await this.git.stashPush(this.stashMessage)
    }
    if (this.status.branch !== this.base) {
      this.leftStart = true
      this.save()
      await this.git.checkout(this.base)
      this.baseSha = await this.git.revParse('HEAD')
    }
    let localTip: string | undefined
    if (this.push) {
      this.save({ createdLocal: true })
      const created = await this.git.tryCreateBranch(this.branch, this.baseSha)
      if (created.exitCode === 0) {
        this.createdLocal = true
        this.localBefore = null
        this.onBranch = true
        this.save()
      } else if (/already exists/i.test(created.stderr)) {
        localTip = await this.git.revParse(`refs/heads/${this.branch}`)
        this.localBefore = localTip
      } else {
        throw new GitCommandError(['checkout', '-b', this.branch], created)
      }
    } else {
      localTip = this.found.local
      this.localBefore = localTip ?? null
    }
    await this.findExisting(localTip, this.found.remote)
  }

  /** Applies a canonical patch to index and work tree; returns git's answer when it refuses. */
  async apply(patch: string, paths: readonly string[]): Promise<GitOutput> {
    paths.forEach((path) => this.touched.add(path))
    this.worktreeChanged = true
    this.save()
    return this.git.applyIndex(patch)
  }

  /** Back to the base content, keeping the branch (nothing to do before the first apply). */
  async reset(): Promise<void> {
    if (!this.worktreeChanged && !this.baseMoved) return
    await this.git.resetHard(this.baseSha)
    await this.git.cleanPaths([...this.touched])
  }

  /**
   * When an earlier run left this branch with exactly the change now in the index, takes it over
   * instead of committing again; a branch with any other change is BRANCH_EXISTS. Returns the
   * branch's commits, or undefined when there was no such branch.
   */
  async reuseExisting(): Promise<MadeCommit[] | undefined> {
    const existing = this.existing
    if (!existing) return undefined
    const tree = await this.git.writeTree()
    if (tree !== existing.commits[existing.commits.length - 1]!.tree) {
      throw new BranchExistsError(
        `Branch "${this.branch}" already exists (${where(existing)}) with a different change than this run made; delete it or choose another branch_name.`,
        { branch: this.branch, tip: existing.tip, rule: 'different-change' }
      )
    }
    if (this.push) {
      if (this.onBranch) await this.git.resetSoft(existing.tip)
      else await this.git.exec(['symbolic-ref', 'HEAD', `refs/heads/${this.branch}`])
      this.onBranch = true
      if (!existing.remote) await this.pushHead()
    } else {
      // The index already holds the branch's tree, so the base fast-forwards onto it.
      await this.git.resetSoft(existing.tip)
      this.baseMoved = true
    }
    this.reused = true
    const made: MadeCommit[] = []
    for (const commit of existing.commits) {
      const { diff } = await this.git.commitPatch(commit.sha)
      // As this run would report it: without the sign-off and Patchsmith trailers git added.
      const message = commit.message.replace(/(\n+(Signed-off-by|Patchsmith-Commit): [^\n]*)+$/, '')
      made.push({ sha: commit.sha, message, patchId: patchId(diff), diff })
    }
    return made
  }

  /**
   * Commits the index: one commit, or one per request when the change is split by plan step.
   * With hooks, each commit is checked against the approved content and `.git` as it was
   * (commitWithHooks).
   */
  async commit(
    requests: readonly CommitRequest[],
    options: { signoff: boolean; hooks?: boolean }
  ): Promise<MadeCommit[]> {
    const made: MadeCommit[] = []
    this.save({ baseMoved: this.baseMoved || !this.push })
    if (!options.hooks && requests.every((request) => request.files)) {
      made.push(...(await this.commitApprovedFiles(requests, options.signoff)))
      return this.afterCommits(made)
    }
    if (requests.length > 1) await this.git.resetIndex()
    for (const request of requests) {
      if (requests.length > 1) await this.git.applyCached(request.patch)
      const printed = await this.commitIndex(request, options)
      const staged = requests.length === 1 && !options.hooks ? request.staged : undefined
      const { sha, diff } =
        printed && staged ? { sha: printed, diff: staged } : await this.git.commitPatch('HEAD')
      made.push({ sha, message: request.message, patchId: patchId(diff), diff })
      this.commits.push(sha)
      this.save()
    }
    return this.afterCommits(made)
  }

  /**
   * Each commit built from its approved files on the one before (the first on HEAD), then HEAD's
   * branch moved to the last only if it still is where it was, and the index and the tracked
   * files set to exactly that commit.
   */
  private async commitApprovedFiles(
    requests: readonly CommitRequest[],
    signoff: boolean
  ): Promise<MadeCommit[]> {
    const made: MadeCommit[] = []
    // HEAD is the base here: validation cannot move it (repo-tampered), and update-ref below
    // moves HEAD only if it still is there.
    const head = this.baseSha
    let parent = head
    for (const request of requests) {
      const sha = await commitApproved(this.git, parent, request.files!, request.message, {
        signoff
      })
      const diff =
        requests.length === 1 && request.staged
          ? request.staged
          : (await this.git.commitPatch(sha)).diff
      made.push({ sha, message: request.message, patchId: patchId(diff), diff })
      this.commits.push(sha)
      parent = sha
    }
    this.worktreeChanged = true
    this.save()
    await this.git.exec(['update-ref', '-m', 'patchsmith: commit', 'HEAD', parent, head])
    await this.git.exec(['reset', '--quiet', '--hard', 'HEAD'])
    return made
  }

  private async afterCommits(made: MadeCommit[]): Promise<MadeCommit[]> {
    if (!this.push) {
      this.baseMoved = true
      await this.git.createBranchRef(this.branch, made[made.length - 1]!.sha)
      this.createdLocal = true
    }
    return made
  }

  /** Pushes the branch to origin: never forced, always to refs/heads/<branch>. */
  async pushBranch(): Promise<void> {
    if (!this.push || this.reused) return
    await this.pushHead()
  }

  /**
   * Back to the branch the run started on (when that was not the base), and the user's stashed
   * changes put back. Call last: after the push, or after the rollback.
   */
  async restoreUserChanges(): Promise<string[]> {
    const problems = await this.restoreStart()
    // After a commit the journal would undo it: a stash that could not be applied is said in
    // `problems` (kept in the stash list), and nothing is left to recover.
    this.options.journal?.remove()
    return problems
  }

  /** Back to the starting point and the stash put back; the journal is left to `settle`. */
  private async restoreStart(): Promise<string[]> {
    const problems: string[] = []
    if (this.leftStart) {
      const start = this.startBranch ?? this.status.head!
      await attempt(problems, 'back to the starting point', () => this.git.checkout(start))
      this.leftStart = false
      this.onBranch = false
    }
    if (this.stash) {
      const stash = this.stash
      this.stash = undefined
      await attempt(problems, 'restore uncommitted changes', async () => {
        const out = await this.git.stashRestore(stash)
        if (out.exitCode !== 0) {
          throw new Error(
            `they are kept in the stash (${stash.slice(0, 12)}): ${out.stderr.trim() || out.stdout.trim()}`
          )
        }
      })
    }
    return problems
  }

  /**
   * The journal is removed only when everything is back. Otherwise it is kept, so the next run
   * (or `patchsmith recover`) finishes the job, and the last problem says so.
   */
  private settle(problems: string[]): string[] {
    if (problems.length === 0) {
      this.options.journal?.remove()
      return problems
    }
    if (!this.options.journal) return problems
    return [
      ...problems,
      `not everything was put back; the journal ${this.options.journal.file} is kept: fix the cause above (free disk space, remove a stale .git/index.lock, …), then run \`patchsmith recover --repo ${this.git.dir}\` (a new run also recovers first) to finish`
    ]
  }

  /**
   * Undoes everything this change did: work tree, commits on the base, the branch it created
   * (locally, and on origin if pushed), then puts the user's stashed changes back. A branch that
   * existed before the run is never deleted.
   */
  async rollback(): Promise<string[]> {
    const problems: string[] = []
    if (this.onBranch) {
      await attempt(problems, 'checkout base', () => this.git.checkout(this.base, { force: true }))
      this.onBranch = false
    }
    if (this.worktreeChanged || this.baseMoved) {
      await attempt(problems, 'reset', () => this.reset())
      this.worktreeChanged = false
      this.baseMoved = false
    }
    if (this.createdLocal) {
      await attempt(problems, 'delete branch', () => this.git.deleteLocalBranch(this.branch))
      this.createdLocal = false
    }
    if (this.pushed) {
      await attempt(problems, 'delete remote branch', async () => {
        const out = await this.git.push(
          REMOTE,
          `:refs/heads/${this.branch}`,
          this.options.auth?.env
        )
        if (out.exitCode !== 0) throw new Error(out.stderr.trim())
      })
      this.pushed = false
    }
    problems.push(...(await this.restoreStart()))
    return this.settle(problems)
  }

  private async pushHead(): Promise<void> {
    this.pushing = true
    this.save()
    const out = await this.git.push(
      REMOTE,
      `HEAD:refs/heads/${this.branch}`,
      this.options.auth?.env
    )
    if (out.exitCode !== 0) throw pushError(this.branch, out)
    this.pushed = !this.existing?.remote
  }

  /** Records what a recovery would have to undo if the run died now. */
  private save(intent: Partial<JournalRecord> = {}): void {
    this.options.journal?.write({
      pid: process.pid,
      started: this.started,
      startBranch: this.startBranch,
      startHead: this.status.head!,
      base: this.base,
      baseSha: this.baseSha,
      branch: this.branch,
      stashMessage: this.stashMessage,
      stash: this.stash,
      leftStart: this.leftStart,
      createdLocal: this.createdLocal,
      localBefore: this.localBefore,
      remoteBefore: this.push ? (this.found.remote ?? null) : undefined,
      worktreeChanged: this.worktreeChanged,
      baseMoved: this.baseMoved,
      commits: [...this.commits],
      pushing: this.pushing,
      touched: [...this.touched],
      ...intent
    })
  }

  /** Commits the index; returns the new commit's SHA when git printed it (never with hooks). */
  private async commitIndex(
    request: CommitRequest,
    options: { signoff: boolean; hooks?: boolean }
  ): Promise<string | undefined> {
    this.worktreeChanged = true
    if (options.hooks) {
      await commitWithHooks(this.git, request.message, options)
      return undefined
    }
    const out = await this.git.commit(request.message, options)
    if (out.exitCode === 0) return out.sha
    throw new GitCommandError(['commit'], out)
  }

  /** Classifies a branch of that name found locally or on origin; refuses one that diverged. */
  private async findExisting(local?: string, remote?: string): Promise<void> {
    if (!local && !remote) return
    const place = local && remote ? 'locally and on origin' : local ? 'locally' : 'on origin'
    const refuse = (why: string, rule: string) =>
      new BranchExistsError(
        `Branch "${this.branch}" already exists ${place} and ${why}; delete it or choose another branch_name.`,
        { branch: this.branch, rule, tip: remote ?? local }
      )
    if (local && remote && local !== remote) {
      throw refuse(
        `differs between the two (${local.slice(0, 12)} here, ${remote.slice(0, 12)} there)`,
        'diverged'
      )
    }
    const tip = (remote ?? local)!
    if (remote && !local) await this.git.fetchBranch(REMOTE, this.branch, this.options.auth?.env)
    const commits =
      tip === this.baseSha
        ? []
        : await this.git.commitsSince(this.baseSha, tip, MAX_EXISTING_COMMITS + 1)
    if (commits.length === 0) throw refuse('holds no change of its own', 'no-change')
    if (commits.length > MAX_EXISTING_COMMITS || commits[0]!.parents[0] !== this.baseSha) {
      throw refuse(`does not start from ${this.base} (${this.baseSha.slice(0, 12)})`, 'diverged')
    }
    // Known before any draft: a branch that changes a file this plan does not cannot hold it.
    const changed = await this.git.exec(['diff', '--name-only', '-z', this.baseSha, tip])
    const planned = new Set(this.options.plannedPaths ?? [])
    const foreign = changed.stdout.split('\0').filter((path) => path && !planned.has(path))
    if (this.options.plannedPaths && foreign.length > 0)
      throw refuse(
        `changes files this plan does not (${foreign.slice(0, 5).join(', ')})`,
        'different-change'
      )
    this.existing = { tip, local: Boolean(local), remote: Boolean(remote), commits }
  }
}

// What git leaves in its folder while an operation waits for the user.
const OPERATIONS: ReadonlyArray<[string, string]> = [
  ['MERGE_HEAD', 'merge'],
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
  ['BISECT_LOG', 'bisect']
]

function operationInProgress(repoDir: string): string | undefined {
  const gitDir = gitDirs(repoDir)[0]!
  return OPERATIONS.find(([name]) => existsSync(join(gitDir, name)))?.[1]
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason
  return result.value
}

function assertBranchName(branch: string): void {
  if (
    !BRANCH_NAME.test(branch) ||
    branch.endsWith('.lock') ||
    branch.endsWith('/') ||
    branch.endsWith('.') ||
    // Names git would read as something else: HEAD, a remote-tracking branch, a full ref.
    /^(head|@|fetch_head|orig_head|merge_head)$/i.test(branch) ||
    /^(refs|remotes|origin|upstream)\//.test(branch)
  ) {
    throw new InvalidInputError(
      `Invalid fix_plan.branch_name: "${branch}" is not a safe branch name.`,
      { field: 'fix_plan.branch_name', rule: 'branch-name' }
    )
  }
}

function where(existing: ExistingBranch): string {
  return existing.local && existing.remote
    ? 'locally and on origin'
    : existing.local
      ? 'locally'
      : 'on origin'
}

async function attempt(
  problems: string[],
  step: string,
  action: () => Promise<unknown>
): Promise<void> {
  try {
    await action()
  } catch (error) {
    problems.push(`${step}: ${(error as Error).message}`)
  }
}
