import type { Git, GitOutput } from '../git/index.js'

// branch.autoSetupMerge values under which a branch made from a local HEAD gets no upstream.
const NO_UPSTREAM_FROM_HEAD = new Set(['true', 'false', 'simple'])

/**
 * `checkout -b <branch> <sha>` when HEAD is at `sha` already: the branch made and HEAD pointed at
 * it, without a pass over every file of the index and the work tree (which would find nothing to
 * change: the tree is HEAD's, and the user's changes are stashed). Fails as checkout does when
 * the branch exists. `made` is called as soon as the branch exists.
 */
export async function branchHere(
  git: Git,
  branch: string,
  sha: string,
  startBranch: string | undefined,
  made: () => void
): Promise<GitOutput> {
  if (await checkoutSkipsTheTree(git)) {
    // Git's own shortcut: `checkout -b` with no start point, no -q and no --track only makes the
    // branch and moves HEAD (one process, the same reflog entries).
    const out = await git.exec(['checkout', '-b', branch], { allowFailure: true })
    // Made even when moving HEAD failed after it: a rollback must delete it then too.
    if (out.exitCode === 0 || (!/already exists/i.test(out.stderr) && (await madeRef(git, branch))))
      made()
    return out
  }
  const created = await git.exec(['branch', '--no-track', '--end-of-options', branch, sha], {
    allowFailure: true
  })
  if (created.exitCode !== 0) return created
  made()
  return git.exec([
    'symbolic-ref',
    '-m',
    `checkout: moving from ${startBranch ?? sha} to ${branch}`,
    'HEAD',
    `refs/heads/${branch}`
  ])
}

/**
 * Whether `checkout -b` from HEAD leaves the config and the submodules alone: no upstream set up
 * for the new branch (branch.autoSetupMerge `always` or `inherit` would write one) and no
 * recursion into submodules.
 */
async function checkoutSkipsTheTree(git: Git): Promise<boolean> {
  const entries = await git.configEntries()
  const value = (key: string) =>
    [...entries]
      .reverse()
      .find((entry) => entry.key === key)
      ?.value.toLowerCase()
  const setup = value('branch.autosetupmerge')
  const recurse = value('submodule.recurse')
  return (setup === undefined || NO_UPSTREAM_FROM_HEAD.has(setup)) && !isTrue(recurse)
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && ['true', 'yes', 'on', '1', ''].includes(value)
}

async function madeRef(git: Git, branch: string): Promise<boolean> {
  return (await git.tryRevParse(`refs/heads/${branch}`)) !== undefined
}
