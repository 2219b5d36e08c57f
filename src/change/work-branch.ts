import { BranchExistsError } from '../contract/index.js'
import {
  GitCommandError,
  type BranchCommit,
  type BranchPublisher,
  type Git,
  type PushAuth
} from '../git/index.js'
import type { JournalRecord, RunJournal } from '../run-state/index.js'
import { preflight, REMOTE } from './branch-preflight.js'
import { attempt, settle } from './change-restore.js'
import { publish } from './publish.js'

interface WorkBranchOptions {
  /** The branch all task commits go to (reported as each Commit's branch). */
  branch: string
  baseBranch?: string
  /** true: commits go on `branch`, pushed after each task. false: on the base, for a PR step. */
  push: boolean
  /** With push: false, the commits go on `branch` all the same (see ChangeBranchOptions). */
  keepStart?: boolean
  dryRun: boolean
  auth?: PushAuth
  /**
   * Where a run killed past any handler is recorded (see RunJournal): the start, the stash, the
   * branch created, and the planned paths. Task commits are checkpoints, so a recovery keeps
   * them: it deletes the work branch only while it holds none.
   */
  journal?: RunJournal
  plannedPaths?: readonly string[]
  /** Branches the work branch must never be (the repository's default branch). */
  protectedBranches?: readonly string[]
  /** Publishes each checkpoint instead of `git push` (commit-signing: github). */
  publisher?: BranchPublisher
  /**
   * A rerun of the same work (a batch): a branch of that name on origin is not refused but
   * fetched, and the work goes on from origin's tip (a local branch of that name must be at the
   * same commit). Only when pushing; the caller judges the commits found there (`continued`).
   */
  continueFromOrigin?: boolean
  /** Where the branch name comes from, for refusals (default: the task file's). */
  source?: { field: string; name: string }
  /** How a refusal of an existing branch tells the user to get past it. */
  existsHint?: string
}

const TASKS = { field: 'task-file', name: "The tasks' branch" }
const TASKS_HINT = 'delete it, or name another with a "Branch:" line in the task file'
/** More commits than any rerun could have made: the branch is then refused by its caller. */
const MAX_CONTINUED_COMMITS = 200

/** The branch as an earlier run left it on origin, when the work goes on from there. */
export interface ContinuedBranch {
  /** Origin's tip, where the work goes on. */
  tip: string
  /** Its commits the base does not have, oldest first (at most MAX_CONTINUED_COMMITS + 1). */
  commits: BranchCommit[]
}

/**
 * The branch a task file's commits stack up on. Each task is its own ChangeBranch whose base is
 * this branch's tip, so a failed task rolls back to the last good commit and no further.
 */
export class WorkBranch {
  private created = false
  /** The work branch's tip on origin: where the next checkpoint's commits go on. */
  private onOrigin?: string
  private finished = false
  /** The branch found on origin, when the work goes on from its tip (continueFromOrigin). */
  continued?: ContinuedBranch
  private constructor(
    private readonly git: Git,
    /** The reported branch name. */
    readonly branch: string,
    /** The branch checked out while the tasks run: where the commits land. */
    readonly head: string,
    private readonly start: string,
    private readonly stash: string | undefined,
    private readonly options: WorkBranchOptions,
    /** The commit the first task's commit goes on. */
    private readonly baseSha: string
  ) {}

  /**
   * The same preflight as a plan's ChangeBranch; the branch must not exist yet, unless it is on
   * origin and the work continues from there (continueFromOrigin).
   */
  static async open(git: Git, options: WorkBranchOptions): Promise<WorkBranch> {
    const { branch } = options
    const source = options.source ?? TASKS
    const found = await preflight(git, { ...options, readLocal: true, source })
    const { status, base, localTip, remoteTip } = found
    const hint = options.existsHint ?? TASKS_HINT
    const exists = (where: string, tip: string) =>
      new BranchExistsError(`Branch "${branch}" already exists ${where}; ${hint}.`, {
        branch,
        tip,
        rule: 'exists'
      })
    const continuing = options.continueFromOrigin === true && options.push && remoteTip
    if (continuing && localTip && localTip !== remoteTip)
      throw new BranchExistsError(
        `Branch "${branch}" is at ${localTip.slice(0, 12)} here and at ${remoteTip.slice(0, 12)} on origin; ${hint}.`,
        { branch, tip: remoteTip, rule: 'diverged' }
      )
    if (!continuing && localTip && !options.dryRun) throw exists('locally', localTip)
    if (!continuing && remoteTip) throw exists('on origin', remoteTip)
    const baseSha = await git.revParse(base === status.branch ? 'HEAD' : `refs/heads/${base}`)
    let continued: ContinuedBranch | undefined
    if (continuing) {
      await git.fetchBranch(REMOTE, branch, options.auth?.env)
      const commits = await git.commitsSince(baseSha, remoteTip, MAX_CONTINUED_COMMITS + 1)
      continued = { tip: remoteTip, commits }
    }
    // The commits go on the work branch itself unless, not pushed, they go on the base for a PR step.
    const own = options.push || (options.keepStart === true && !options.dryRun)
    const record: JournalRecord = {
      pid: process.pid,
      started: new Date().toISOString(),
      ...(status.branch ? { startBranch: status.branch } : {}),
      startHead: status.head,
      base,
      baseSha,
      branch,
      leftStart: status.branch !== base,
      createdLocal: own && !(continued && localTip),
      // Read above: a recovery deletes the work branch only when it was not there before.
      localBefore: localTip ?? null,
      // From here on the tasks' edits may be in the work tree, on the planned paths only.
      worktreeChanged: true,
      baseMoved: false,
      commits: [],
      pushing: false,
      touched: [...(options.plannedPaths ?? [])]
    }
    const stashMessage = `patchsmith: uncommitted changes before ${branch}`
    options.journal?.write(status.changed.length > 0 ? { ...record, stashMessage } : record)
    const stash = status.changed.length > 0 ? await git.stashPush(stashMessage) : undefined
    if (stash) options.journal?.write({ ...record, stashMessage, stash })
    if (status.branch !== base) await git.checkout(base)
    const work = new WorkBranch(
      git,
      branch,
      own ? branch : base,
      status.branch ?? status.head,
      stash,
      options,
      baseSha
    )
    work.continued = continued
    if (own && continued && localTip) {
      await git.checkout(branch)
    } else if (own) {
      const start = continued?.tip ?? (await git.revParse('HEAD'))
      const out = await git.tryCreateBranch(branch, start)
      if (out.exitCode !== 0) throw new GitCommandError(['checkout', '-b', branch], out)
      work.created = true
    }
    return work
  }

  /**
   * After a task's commit: its own branch ref dropped, the work branch pushed (when pushing).
   * Returns each local commit's published counterpart when a publisher made them again.
   */
  async checkpoint(taskBranch: string): Promise<Map<string, string> | undefined> {
    if (await this.git.tryRevParse(`refs/heads/${taskBranch}`)) {
      await this.git.deleteLocalBranch(taskBranch)
    }
    if (!this.options.push) return undefined
    const ref = `refs/heads/${this.branch}`
    const { git, branch, onOrigin } = this
    const base = onOrigin ?? this.baseSha
    const { auth, publisher } = this.options
    const published = await publish({
      git,
      branch,
      ref,
      base,
      remoteTip: onOrigin,
      auth,
      publisher
    })
    // A publisher's commits are new ones: the next task's go on them (a push keeps the SHAs).
    if (published) this.onOrigin = [...published.values()].at(-1) ?? onOrigin
    return published
  }

  /**
   * Back where the run started. The work branch stays when it holds commits (in hand-off mode
   * it is created at the last one); without any it is deleted. Returns what could not be done;
   * the journal is kept when something could not be put back.
   */
  async finish(committed: boolean): Promise<string[]> {
    if (this.finished) return []
    this.finished = true
    const { git } = this
    const problems: string[] = []
    const tip = await git.revParse('HEAD')
    if (this.start !== this.head)
      await attempt(problems, 'checkout', () => git.checkout(this.start))
    if (this.created && !committed) {
      await attempt(problems, 'delete branch', () => git.deleteLocalBranch(this.branch))
    }
    if (this.head !== this.branch && !this.options.dryRun && committed) {
      await attempt(problems, 'create branch', () => git.createBranchRef(this.branch, tip))
    }
    if (this.stash) {
      const stash = this.stash
      await attempt(problems, 'restore uncommitted changes', async () => {
        const out = await git.stashRestore(stash)
        if (out.exitCode !== 0) throw new Error(`kept in the stash ${stash.slice(0, 12)}`)
      })
    }
    return settle(git, this.options, problems)
  }
}
