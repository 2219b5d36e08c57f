import { BranchExistsError, type RefusalRule } from '../contract/index.js'
import { type BranchCommit, type Git, patchId, type PushAuth } from '../git/index.js'
import { REMOTE } from './branch-preflight.js'
import type { MadeCommit } from './change-commit.js'
import type { ChangeState } from './change-state.js'

const MAX_EXISTING_COMMITS = 100

/** A branch of the change's name that an earlier run left, locally or on origin. */
export interface ExistingBranch {
  tip: string
  local: boolean
  remote: boolean
  commits: BranchCommit[]
}

/**
 * Classifies a branch of that name found locally or on origin: undefined when there is none;
 * refused when it diverged, holds nothing, or changes a file this plan does not.
 */
export async function findExisting(
  git: Git,
  change: {
    branch: string
    base: string
    baseSha: string
    plannedPaths?: readonly string[]
    auth?: PushAuth
  },
  local?: string,
  remote?: string
): Promise<ExistingBranch | undefined> {
  if (!local && !remote) return undefined
  const { branch, baseSha } = change
  const place = local && remote ? 'locally and on origin' : local ? 'locally' : 'on origin'
  const refuse = (why: string, rule: RefusalRule) =>
    new BranchExistsError(
      `Branch "${branch}" already exists ${place} and ${why}; delete it or choose another branch_name.`,
      { branch, rule, tip: remote ?? local }
    )
  if (local && remote && local !== remote) {
    throw refuse(
      `differs between the two (${local.slice(0, 12)} here, ${remote.slice(0, 12)} there)`,
      'diverged'
    )
  }
  const tip = (remote ?? local)!
  if (remote && !local) await git.fetchBranch(REMOTE, branch, change.auth?.env)
  const commits =
    tip === baseSha ? [] : await git.commitsSince(baseSha, tip, MAX_EXISTING_COMMITS + 1)
  if (commits.length === 0) throw refuse('holds no change of its own', 'no-change')
  if (commits.length > MAX_EXISTING_COMMITS || commits[0]!.parents[0] !== baseSha) {
    throw refuse(`does not start from ${change.base} (${baseSha.slice(0, 12)})`, 'diverged')
  }
  // Known before any draft: a branch that changes a file this plan does not cannot hold it.
  const changed = await git.exec(['diff', '--name-only', '-z', baseSha, tip])
  const planned = new Set(change.plannedPaths ?? [])
  const foreign = changed.stdout.split('\0').filter((path) => path && !planned.has(path))
  if (change.plannedPaths && foreign.length > 0)
    throw refuse(
      `changes files this plan does not (${foreign.slice(0, 5).join(', ')})`,
      'different-change'
    )
  return { tip, local: Boolean(local), remote: Boolean(remote), commits }
}

/** Refuses an existing branch whose last tree is not the index's (`tree`). */
function assertSameChange(existing: ExistingBranch, branch: string, tree: string): void {
  if (tree === existing.commits[existing.commits.length - 1]!.tree) return
  throw new BranchExistsError(
    `Branch "${branch}" already exists (${where(existing)}) with a different change than this run made; delete it or choose another branch_name.`,
    { branch, tip: existing.tip, rule: 'different-change' }
  )
}

/**
 * Takes an earlier run's branch over when it holds exactly the change now in the index (any
 * other change is BRANCH_EXISTS): checked out as the plan's branch, or fast-forwarded onto as the
 * base (the index already holds the branch's tree).
 */
export async function takeOver(
  git: Git,
  state: ChangeState,
  existing: ExistingBranch,
  branch: string,
  commitsOnBase: boolean
): Promise<void> {
  assertSameChange(existing, branch, await git.writeTree())
  if (!commitsOnBase) {
    if (state.onBranch) await git.resetSoft(existing.tip)
    else await git.exec(['symbolic-ref', 'HEAD', `refs/heads/${branch}`])
    state.onBranch = true
  } else {
    await git.resetSoft(existing.tip)
    state.baseMoved = true
  }
}

/** The existing branch's commits as this run would report them. */
export async function existingCommits(git: Git, existing: ExistingBranch): Promise<MadeCommit[]> {
  const made: MadeCommit[] = []
  for (const commit of existing.commits) {
    const { diff } = await git.commitPatch(commit.sha)
    // As the commit holds it: the sign-off and Patchsmith trailers included.
    made.push({ sha: commit.sha, message: commit.message, patchId: patchId(diff), diff })
  }
  return made
}

function where(existing: ExistingBranch): string {
  return existing.local && existing.remote
    ? 'locally and on origin'
    : existing.local
      ? 'locally'
      : 'on origin'
}
