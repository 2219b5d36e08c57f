import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { type CommitOptions, type Git, type GitOutput, type RepoStatus } from '../git/index.js'
import { preflight } from './branch-preflight.js'
import { UntrackedListing } from './untracked-listing.js'
import { createChange } from './branch-create.js'
import type { ChangeBranchOptions } from './change-options.js'
import { ChangeState } from './change-state.js'
import { commitChange, type CommitRequest, type MadeCommit } from './change-commit.js'
import { existingCommits, takeOver, type ExistingBranch } from './existing-branch.js'
import { resetToBase, restoreStart, rollbackChange } from './change-restore.js'
import { movedBase, replayAsApproved, type MovedBase } from './moving-base.js'
import { clearWays, DraftSwap } from './draft-swap.js'
import { indexStamp } from './index-stamp.js'
import { publish } from './publish.js'

export type { CommitRequest, MadeCommit } from './change-commit.js'
export type { ChangeBranchOptions } from './change-options.js'

/**
 * The git side of one change: prepared from the base, patches applied and undone, committed
 * (or an identical earlier commit reused), pushed, and rolled back so that the repository and
 * the user's uncommitted work are as they were found. What it has done so far is its
 * ChangeState, journaled before each step.
 */
export class ChangeBranch {
  /** An earlier run's branch holding this change: reused instead of a second commit. */
  reused = false
  /** Each local commit's published counterpart, once a publisher put the branch on origin. */
  published?: Map<string, string>
  private existing?: ExistingBranch
  /** The applied patch's files as at the base and as applied, for the base check (unapply). */
  private readonly swap = new DraftSwap()
  /** The index's stamp when the caller last checked it (noteIndexChecked). */
  private checkedIndex?: string
  private untracked = UntrackedListing.none()
  private readonly state: ChangeState
  /** origin's base the committed change was moved onto (moveOnto), if it was. */
  private movedOnto?: string

  private constructor(
    readonly git: Git,
    readonly branch: string,
    readonly base: string,
    private readonly status: RepoStatus & { head: string },
    private readonly options: ChangeBranchOptions,
    /** The branch's tip on origin (when pushing) or here (when not), as found by prepare. */
    private readonly found: { remote?: string; local?: string }
  ) {
    this.state = new ChangeState({
      branch,
      base,
      baseSha: status.head,
      startBranch: status.branch,
      startHead: status.head,
      push: options.push ?? true,
      remoteBefore: found.remote,
      journal: options.journal
    })
  }

  /**
   * The user's untracked files (UntrackedListing); none once the run checked out another branch,
   * touched a .gitignore (what the base ignored may be the user's now) or ran setup commands.
   */
  async untrackedAtStart(): Promise<readonly string[] | undefined> {
    const ignoreEdited = [...this.state.touched].some((path) => /(^|\/)\.gitignore$/.test(path))
    return this.state.leftStart || ignoreEdited ? undefined : this.untracked.settled()
  }

  /** Code ran in the work tree since the preflight (setup commands): its list is stale. */
  forgetUntracked(): void {
    this.untracked = UntrackedListing.none()
  }

  /** The commit the change is made on. */
  get baseCommit(): string {
    return this.state.baseSha
  }

  get push(): boolean {
    return this.options.push ?? true
  }

  /** push: false for a pull-request step: the commit goes on the base branch itself. */
  get commitsOnBase(): boolean {
    return !this.push && !this.options.keepStart
  }

  /** A commit on the base is also on a branch of the plan's name (ChangeBranchOptions). */
  get handsOffBranch(): boolean {
    return this.commitsOnBase && this.options.handOffBranch !== false
  }

  /** Credentials for remote commands, registered as a secret by the caller. */
  get authSecret(): string | undefined {
    return this.options.auth?.secret
  }

  /** Everything that can refuse the run before anything changes (see preflight). */
  static async prepare(git: Git, options: ChangeBranchOptions): Promise<ChangeBranch> {
    const { found, listing } = await UntrackedListing.beside(git, options.untracked !== false, () =>
      preflight(git, { ...options, push: options.push ?? true })
    )
    const change = new ChangeBranch(git, options.branch, found.base, found.status, options, {
      remote: found.remoteTip,
      local: found.localTip
    })
    change.untracked = listing
    return change
  }

  /**
   * Sets the repository up for the change (createChange): the user's other uncommitted changes
   * stashed, the base checked out, the plan's branch created or checked for.
   */
  async create(): Promise<void> {
    this.existing = await createChange(this.git, this.state, {
      ...this.options,
      base: this.base,
      status: this.status,
      found: this.found,
      commitsOnBase: this.commitsOnBase
    })
  }

  /** Applies a canonical patch to index and work tree; returns git's answer when it refuses. */
  async apply(patch: string, paths: readonly string[]): Promise<GitOutput> {
    await this.untracked.settled()
    for (const path of paths) {
      this.state.touched.add(path)
      if (!existsSync(join(this.git.dir, path))) this.state.absent.add(path)
    }
    this.state.worktreeChanged = true
    this.state.save()
    return this.swap.apply(this.git.dir, paths, () => this.git.applyIndex(patch))
  }

  /** Back to the base content, keeping the branch (nothing to do before the first apply). */
  async reset(): Promise<void> {
    this.swap.drop()
    await resetToBase(this.git, this.state, this.state.absent)
  }

  /**
   * The caller has just checked that the index holds exactly the base and the approved change,
   * after the last repository code ran: a commit finding the very same index file needs no
   * second look at it.
   */
  noteIndexChecked(): void {
    this.checkedIndex = indexStamp(this.git.dir)
  }

  /**
   * While the work tree holds the base's files for a base check (unapply): the index file the
   * command's git must read (GIT_INDEX_FILE) to see the base's index too.
   */
  get baseIndexFile(): string | undefined {
    return this.swap.indexFile
  }

  /**
   * Back to the base content for a command to run there in the middle of validation (the base
   * check), and the change back right after (reapply). The swap writes only the patch's files;
   * when it declines (a command changed a planned file, or put a link on its way) git resets
   * and applies, after `beforeGit` (git must not meet what the command left). Not `git apply -R
   * --index`: it writes a modified file through a linked folder when the content there matches.
   */
  async unapply(beforeGit?: () => Promise<void>): Promise<void> {
    if (this.swap.toBase()) return
    await beforeGit?.()
    await this.reset()
  }

  async reapply(patch: string, paths: readonly string[], beforeGit?: () => Promise<void>) {
    const back = this.swap.toDraft()
    if (back) return { exitCode: 0, stdout: '', stderr: '' }
    await beforeGit?.()
    clearWays(this.git.dir, paths)
    if (back === false) await this.reset()
    return this.apply(patch, paths)
  }

  /**
   * When an earlier run left this branch with exactly the change now in the index, takes it over
   * instead of committing again; a branch with any other change is BRANCH_EXISTS. Returns the
   * branch's commits, or undefined when there was no such branch.
   */
  async reuseExisting(): Promise<MadeCommit[] | undefined> {
    const { existing, state, git } = this
    if (!existing) return undefined
    this.swap.drop()
    await takeOver(git, state, existing, this.branch, this.commitsOnBase)
    if (this.push && !existing.remote) await this.publishRef(this.branch, 'HEAD', this.found.remote)
    this.reused = true
    return existingCommits(git, existing)
  }

  /**
   * Commits the index: one commit, or one per request when the change is split by plan step.
   * With hooks, each commit is checked against the approved content and `.git` as it was
   * (commitWithHooks).
   */
  async commit(requests: readonly CommitRequest[], options: CommitOptions): Promise<MadeCommit[]> {
    this.swap.drop()
    this.state.save({ baseMoved: this.state.baseMoved || this.commitsOnBase })
    const made = await commitChange(this.git, this.state, requests, options, this.checkedIndex)
    if (this.commitsOnBase) this.state.baseMoved = true
    if (this.handsOffBranch) {
      await this.git.createBranchRef(this.branch, made[made.length - 1]!.sha)
      this.state.createdLocal = true
    }
    return made
  }

  /** The commit the branch's change sits on now: the base, or what it was moved onto. */
  get landedOn(): string {
    return this.movedOnto ?? this.state.baseSha
  }

  /** origin's base when it moved past the commit the change sits on (see movedBase). */
  async baseMovedOnOrigin(): Promise<MovedBase | undefined> {
    if (this.reused) return undefined
    return movedBase(this.git, this.base, this.landedOn, this.options.auth)
  }

  /**
   * The committed change replayed onto `moved.onto` (replayOnto), checked to be exactly the
   * approved change there, and checked out as the branch's tip. The local base branch is left
   * as it was; a rollback deletes the branch as before. Returns the moved commits.
   */
  async moveOnto(moved: MovedBase): Promise<MadeCommit[]> {
    const { movedTip, made } = await replayAsApproved(this.git, moved)
    // The moved commits are the run's own: a recovery after a kill may undo a ref pointing there.
    this.state.commits.push(...made.map((commit) => commit.sha))
    this.state.worktreeChanged = true
    this.state.save()
    await this.git.resetHard(movedTip)
    this.movedOnto = moved.onto
    return made
  }

  /** A commit on the base that the change publishes itself (publishBase: a follow-up's). */
  get publishesBase(): boolean {
    return this.commitsOnBase && this.options.publishBase === true
  }

  /**
   * Publishes the change (see publish): the plan's branch when pushing, or the base it was
   * committed on (publishesBase); never forced. Journaled first, so a run killed meanwhile is
   * undone by the next one; the base, which the run did not create, is never deleted.
   */
  async pushBranch(): Promise<void> {
    if (this.reused) return
    if (this.push) await this.publishRef(this.branch, 'HEAD', this.found.remote)
    else if (this.publishesBase)
      await this.publishRef(this.base, `refs/heads/${this.base}`, this.landedOn)
  }

  /**
   * Back to the branch the run started on (when that was not the base), and the user's stashed
   * changes put back. Call last: after the push, or after the rollback.
   */
  async restoreUserChanges(): Promise<string[]> {
    // Not pushed, on a branch of its own: the run leaves the branch it started on checked out.
    if (this.options.keepStart && !this.push && this.state.onBranch) this.state.leftStart = true
    const problems = await restoreStart(this.git, this.state)
    // After a commit the journal would undo it; a stash not applied stays listed (problems).
    this.options.journal?.remove()
    return problems
  }

  /** Undoes everything this change did (see rollbackChange). */
  async rollback(): Promise<string[]> {
    this.swap.drop()
    return rollbackChange(this.git, this.state, this.options.auth)
  }

  private async publishRef(branch: string, ref: string, remoteTip?: string): Promise<void> {
    const { git, state } = this
    state.pushing = true
    state.save()
    this.published = await publish({
      git,
      branch,
      ref,
      base: this.landedOn,
      remoteTip,
      auth: this.options.auth,
      publisher: this.options.publisher,
      protectedBranches: this.options.protectedBranches,
      record: (shas) => {
        state.commits.push(...shas)
        state.save()
      }
    })
    if (branch === this.branch) state.pushed = !this.existing?.remote
    state.save()
  }
}
