import { GitCommandError, type CommitOptions, type Git, patchId } from '../git/index.js'
import { indexStamp } from './index-stamp.js'
import { commitApproved, type ApprovedFile } from './approved-commit.js'
import { commitWithHooks } from './hooked-commit.js'
import type { ChangeState } from './change-state.js'

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
  /** The whole message as committed: the sign-off and Patchsmith trailers included. */
  message: string
  /** `git patch-id --stable` of the commit. */
  patchId: string
  /** The commit's patch as git renders it. */
  diff: string
}

/**
 * Commits the change: from the approved contents when every request has them and no hook
 * runs, else from the index (one commit, or one per request when the change is split).
 */
export async function commitChange(
  git: Git,
  state: ChangeState,
  requests: readonly CommitRequest[],
  options: CommitOptions,
  /** The index's stamp when it was last checked to be the base and the approved change. */
  checkedIndex?: string
): Promise<MadeCommit[]> {
  if (!options.hooks && requests.every((request) => request.files)) {
    return commitApprovedFiles(git, state, requests, options.signoff, checkedIndex)
  }
  const made: MadeCommit[] = []
  if (requests.length > 1) await git.resetIndex()
  for (const request of requests) {
    if (requests.length > 1) await git.applyCached(request.patch)
    const printed = await commitIndex(git, state, request, options)
    const staged = requests.length === 1 && !options.hooks ? request.staged : undefined
    const { sha, diff } =
      printed && staged ? { sha: printed, diff: staged } : await git.commitPatch('HEAD')
    // The message as committed: git (and hooks) added the sign-off and the trailers.
    made.push({ sha, message: await git.commitMessage(sha), patchId: patchId(diff), diff })
    state.commits.push(sha)
    state.save()
  }
  return made
}

/**
 * Each commit built from its approved files on the one before (the first on HEAD), then HEAD's
 * branch moved to the last only if it still is where it was, and the index set to that commit.
 */
async function commitApprovedFiles(
  git: Git,
  state: ChangeState,
  requests: readonly CommitRequest[],
  signoff: boolean,
  checkedIndex: string | undefined
): Promise<MadeCommit[]> {
  const made: MadeCommit[] = []
  // HEAD is the base here: validation cannot move it (repo-tampered), and update-ref below
  // moves HEAD only if it still is there.
  const head = state.baseSha
  let parent = head
  for (const request of requests) {
    const { sha, message } = await commitApproved(git, parent, request.files!, request.message, {
      signoff
    })
    const diff =
      requests.length === 1 && request.staged ? request.staged : (await git.commitPatch(sha)).diff
    made.push({ sha, message, patchId: patchId(diff), diff })
    state.commits.push(sha)
    parent = sha
  }
  state.worktreeChanged = true
  state.save()
  await git.exec(['update-ref', '-m', 'patchsmith: commit', 'HEAD', parent, head])
  // The index is this tree when it is the very file last checked to hold the base and the
  // approved change (nothing wrote it since: no process). Otherwise comparing it with the tree
  // reads no file, and only a difference (something a leftover process staged) pays for the
  // `reset --hard` (which checks every tracked file in the work tree).
  if (checkedIndex !== undefined && indexStamp(git.dir) === checkedIndex) return made
  const strayed = await git.exec(['diff-index', '--cached', '--name-only', '-z', 'HEAD', '--'])
  if (strayed.stdout.length > 0) await git.exec(['reset', '--quiet', '--hard', 'HEAD'])
  return made
}

/** Commits the index; returns the new commit's SHA when git printed it (never with hooks). */
async function commitIndex(
  git: Git,
  state: ChangeState,
  request: CommitRequest,
  options: CommitOptions
): Promise<string | undefined> {
  state.worktreeChanged = true
  if (options.hooks) {
    await commitWithHooks(git, request.message, options)
    return undefined
  }
  const out = await git.commit(request.message, options)
  if (out.exitCode === 0) return out.sha
  throw new GitCommandError(['commit'], out)
}
