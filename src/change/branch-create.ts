import { GitCommandError, type Git, type RepoStatus } from '../git/index.js'
import { branchHere } from './branch-here.js'
import type { ChangeBranchOptions } from './change-options.js'
import type { ChangeState } from './change-state.js'
import { findExisting, type ExistingBranch } from './existing-branch.js'

/** What the preflight found, and where the change's commit goes. */
interface ChangeStartPoint extends ChangeBranchOptions {
  base: string
  status: RepoStatus & { head: string }
  /** The branch's tip on origin (when pushing) or here (when not), as found by the preflight. */
  found: { remote?: string; local?: string }
  /** push: false for a pull-request step: the commit goes on the base branch itself. */
  commitsOnBase: boolean
}

/**
 * Sets the repository up for the change: the user's other uncommitted changes stashed, the
 * base checked out, and the plan's branch created (when pushing) or checked for (when not), each
 * step journaled first. A branch that exists already is reused only if it holds this very change
 * (the branch returned); anything else on it is BRANCH_EXISTS.
 */
export async function createChange(
  git: Git,
  state: ChangeState,
  start: ChangeStartPoint
): Promise<ExistingBranch | undefined> {
  const { branch, base, status, found } = start
  if (status.changed.length > 0) {
    state.stashMessage = `patchsmith: uncommitted changes before ${branch}`
    state.save()
    state.stash = await git.stashPush(state.stashMessage)
  }
  if (status.branch !== base) {
    state.leftStart = true
    state.save()
    await git.checkout(base)
    state.baseSha = await git.revParse('HEAD')
  }
  let localTip: string | undefined
  if (!start.commitsOnBase) {
    state.save({ createdLocal: true })
    const created = state.leftStart
      ? await git.tryCreateBranch(branch, state.baseSha)
      : await branchHere(git, branch, state.baseSha, status.branch, () => {
          // Made: a rollback deletes it even if pointing HEAD at it fails.
          state.createdLocal = true
        })
    if (created.exitCode === 0) {
      state.createdLocal = true
      state.localBefore = null
      state.onBranch = true
      state.save()
    } else if (/already exists/i.test(created.stderr)) {
      localTip = await git.revParse(`refs/heads/${branch}`)
      state.localBefore = localTip
    } else {
      throw new GitCommandError(['checkout', '-b', branch], created)
    }
  } else {
    localTip = found.local
    state.localBefore = localTip ?? null
  }
  return findExisting(git, { ...start, baseSha: state.baseSha }, localTip, found.remote)
}
