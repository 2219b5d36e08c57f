import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { GitConflictError, InvalidInputError } from '../contract/index.js'
import {
  GitCommandError,
  type Git,
  gitDirs,
  type PushAuth,
  pushPermissionError,
  remoteReadError,
  type RepoStatus
} from '../git/index.js'

export const REMOTE = 'origin'
const BRANCH_NAME = /^(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/

interface PreflightOptions {
  branch: string
  /** The branch to start from; the checked-out branch when absent. */
  baseBranch?: string
  /** The branch goes to origin: origin must be readable and pushable. */
  push: boolean
  auth?: PushAuth
  /** Uncommitted changes to these paths are refused (the others are stashed). */
  plannedPaths?: readonly string[]
  /** Branches the change must never go to (the repository's default branch). */
  protectedBranches?: readonly string[]
  /** Read the branch's local tip too (always read when not pushing). */
  readLocal?: boolean
  /** Where the branch name comes from, for refusals: the field and how it is named. */
  source?: { field: string; name: string }
}

/** What the preflight found; nothing was changed to find it. */
interface Preflight {
  status: RepoStatus & { head: string }
  base: string
  /** The branch's tip on origin (only read when pushing). */
  remoteTip?: string
  /** The branch's tip here (read when not pushing, or when asked). */
  localTip?: string
}

const PLAN_SOURCE = { field: 'fix_plan.branch_name', name: "The plan's branch" }

/**
 * Everything that can refuse a run on a branch before anything changes: the branch name, the
 * state of the work tree, and (when pushing) whether origin can be read, pushed to, and makes
 * the branch its default. The read-only commands start together; their failures are still
 * reported in this order.
 */
export async function preflight(git: Git, options: PreflightOptions): Promise<Preflight> {
  const { branch, push } = options
  const source = options.source ?? PLAN_SOURCE
  assertBranchName(branch, source.field)
  const [read, remote, local, pushable] = await Promise.allSettled([
    // Tracked files only: the untracked ones are listed while the change is drafted (ChangeBranch).
    git.status(),
    push ? git.remoteHeads(REMOTE, branch, options.auth?.env) : undefined,
    push && !options.readLocal ? undefined : git.tryRevParse(`refs/heads/${branch}`),
    push ? git.pushDryRun(REMOTE, `HEAD:refs/heads/${branch}`, options.auth?.env) : undefined
  ])
  const status = repoStatus(git, read)
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
      `${source.name} "${branch}" is the base or default branch; refusing to commit onto it.`,
      { field: source.field, rule: 'base-branch' }
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
  return { status, base, remoteTip, localTip: settled(local) }
}

/** The status, refused when it is no repository, has no commit, or an operation is unfinished. */
function repoStatus(
  git: Git,
  read: PromiseSettledResult<RepoStatus>
): RepoStatus & { head: string } {
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
  return status as RepoStatus & { head: string }
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

function assertBranchName(branch: string, field: string): void {
  if (
    !BRANCH_NAME.test(branch) ||
    branch.endsWith('.lock') ||
    branch.endsWith('/') ||
    branch.endsWith('.') ||
    // Names git would read as something else: HEAD, a remote-tracking branch, a full ref.
    /^(head|@|fetch_head|orig_head|merge_head)$/i.test(branch) ||
    /^(refs|remotes|origin|upstream)\//.test(branch)
  ) {
    throw new InvalidInputError(`Invalid ${field}: "${branch}" is not a safe branch name.`, {
      field,
      rule: 'branch-name'
    })
  }
}
