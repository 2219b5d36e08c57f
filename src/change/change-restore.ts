import type { Git, PushAuth } from '../git/index.js'
import { REMOTE } from './branch-preflight.js'
import type { ChangeState } from './change-state.js'

/**
 * Back to the base content, keeping the branch (nothing to do before the first apply). `clean`:
 * the paths that may be left untracked afterwards (default: every touched path).
 */
export async function resetToBase(
  git: Git,
  state: ChangeState,
  clean: ReadonlySet<string> = state.touched
): Promise<void> {
  if (!state.worktreeChanged && !state.baseMoved) return
  await git.resetHard(state.baseSha)
  await git.cleanPaths([...clean])
}

/** Back to the starting point and the stash put back; the journal is left to `settle`. */
export async function restoreStart(git: Git, state: ChangeState): Promise<string[]> {
  const problems: string[] = []
  if (state.leftStart) {
    const start = state.start.startBranch ?? state.start.startHead
    await attempt(problems, 'back to the starting point', () => git.checkout(start))
    state.leftStart = false
    state.onBranch = false
  }
  if (state.stash) {
    const stash = state.stash
    state.stash = undefined
    await attempt(problems, 'restore uncommitted changes', async () => {
      const out = await git.stashRestore(stash)
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
 * Undoes everything the change did: work tree, commits on the base, the branch it created
 * (locally, and on origin if pushed), then puts the user's stashed changes back. A branch that
 * existed before the run is never deleted.
 */
export async function rollbackChange(
  git: Git,
  state: ChangeState,
  auth?: PushAuth
): Promise<string[]> {
  const { base, branch } = state.start
  const problems: string[] = []
  if (state.onBranch) {
    await attempt(problems, 'checkout base', () => git.checkout(base, { force: true }))
    state.onBranch = false
  }
  if (state.worktreeChanged || state.baseMoved) {
    await attempt(problems, 'reset', () => resetToBase(git, state))
    state.worktreeChanged = false
    state.baseMoved = false
  }
  if (state.createdLocal) {
    await attempt(problems, 'delete branch', () => git.deleteLocalBranch(branch))
    state.createdLocal = false
  }
  if (state.pushed) {
    await attempt(problems, 'delete remote branch', async () => {
      const out = await git.push(REMOTE, `:refs/heads/${branch}`, auth?.env)
      if (out.exitCode !== 0) throw new Error(out.stderr.trim())
    })
    state.pushed = false
  }
  problems.push(...(await restoreStart(git, state)))
  return settle(git, state, problems)
}

/**
 * The journal is removed only when everything is back. Otherwise it is kept, so the next run
 * (or `patchsmith recover`) finishes the job, and the last problem says so.
 */
export function settle(git: Git, state: { journal?: ChangeState['journal'] }, problems: string[]) {
  const { journal } = state
  if (problems.length === 0 || !journal) {
    journal?.remove()
    return problems
  }
  return [
    ...problems,
    `not everything was put back; the journal ${journal.file} is kept: fix the cause above (free disk space, remove a stale .git/index.lock, …), then run \`patchsmith recover --repo ${git.dir}\` (a new run also recovers first) to finish`
  ]
}

export async function attempt(
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
