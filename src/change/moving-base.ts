import { GitConflictError } from '../contract/index.js'
import { REMOTE } from './branch-preflight.js'
import { type Git, type PushAuth, patchId } from '../git/index.js'
import type { MadeCommit } from './change-commit.js'

/** Where origin's branch is now, when it moved past the commit the change was made on. */
export interface MovedBase {
  branch: string
  /** The commit the change was made (and first validated) on. */
  from: string
  /** origin's tip of the branch now: `from` is one of its ancestors. */
  onto: string
}

/**
 * origin's tip of `branch` when it is a descendant of `from` (someone pushed to it since the
 * change was made on `from`); undefined when it is `from`, is gone, or does not descend from
 * it (local commits not on origin, a rewritten branch): those push as they are.
 */
export async function movedBase(
  git: Git,
  branch: string,
  from: string,
  auth?: PushAuth
): Promise<MovedBase | undefined> {
  const { tip } = await git.remoteHeads(REMOTE, branch, auth?.env)
  if (!tip || tip === from) return undefined
  await git.fetchBranch(REMOTE, branch, auth?.env)
  // What was fetched: the branch may have moved once more since ls-remote.
  const onto = await git.revParse('FETCH_HEAD')
  if (onto === from) return undefined
  const ancestor = await git.exec(['merge-base', '--is-ancestor', from, onto], {
    allowFailure: true
  })
  return ancestor.exitCode === 0 ? { branch, from, onto } : undefined
}

/**
 * The commits `from..tip` replayed on `moved.onto`, oldest first, each keeping its message and
 * author. Each tree is a three-way merge in git's object store (`merge-tree --write-tree`, the
 * merge base being `moved.from`, which both sides descend from): no work tree, index, hook or
 * half-done rebase to clean up, so a conflict leaves nothing behind. A conflict is GIT_CONFLICT
 * naming its paths. Returns the new tip.
 */
async function replayOnto(git: Git, moved: MovedBase, tip: string): Promise<string> {
  const commits = (
    await git.exec(['rev-list', '--reverse', '--topo-order', tip, `^${moved.from}`, '--'])
  ).stdout
    .split('\n')
    .filter(Boolean)
  let parent = moved.onto
  for (const commit of commits) {
    const merged = await git.exec(
      ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', moved.onto, commit],
      { allowFailure: true }
    )
    const [tree, ...paths] = merged.stdout.split('\0').filter(Boolean)
    if (merged.exitCode === 1) throw conflict(moved, paths)
    if (merged.exitCode !== 0 || !tree || !/^[0-9a-f]{40,64}$/.test(tree)) {
      throw new GitConflictError(
        `Could not move the change onto ${moved.branch} as it is on origin now (${moved.onto.slice(0, 12)}): ${merged.stderr.trim() || 'git merge-tree failed'}. This needs git 2.38 or later.`,
        { rule: 'base-moved-conflict', branch: moved.branch, base_sha: moved.onto, paths: [] }
      )
    }
    parent = await recommit(git, commit, tree, parent)
  }
  return parent
}

/** `commit`'s message and author on `tree` over `parent` (commit-tree: no hook runs). */
async function recommit(git: Git, commit: string, tree: string, parent: string): Promise<string> {
  const meta = (
    await git.exec(['log', '-1', '--date=raw', '--format=%an%x00%ae%x00%ad%x00%B', commit, '--'])
  ).stdout
  const [name, email, date, ...body] = meta.split('\0')
  const message = body.join('\0').replace(/\n+$/, '\n')
  const out = await git.exec(['commit-tree', tree, '-p', parent, '-F', '-'], {
    input: message,
    env: { GIT_AUTHOR_NAME: name!, GIT_AUTHOR_EMAIL: email!, GIT_AUTHOR_DATE: date! }
  })
  return out.stdout.trim()
}

/**
 * The approved-content guarantee after a move: `onto..moved` changes exactly the paths
 * `from..tip` changed, adding and removing exactly the same lines in the same order (only where
 * they sit may differ). Anything else (a union merge attribute, a merge that kept more) is
 * GIT_CONFLICT: nothing that was not approved is pushed.
 */
async function assertMovedAsApproved(
  git: Git,
  moved: MovedBase,
  tip: string,
  movedTip: string
): Promise<void> {
  const [approved, landed] = await Promise.all([
    changedLines(git, moved.from, tip),
    changedLines(git, moved.onto, movedTip)
  ])
  const paths = [...new Set([...approved.keys(), ...landed.keys()])]
  const differ = paths.filter((path) => approved.get(path) !== landed.get(path))
  if (differ.length > 0) throw conflict(moved, differ, 'would not be exactly the approved change')
}

/** Per file section of `diff-tree -U0`: its mode lines and its added and removed lines. */
async function changedLines(git: Git, from: string, to: string): Promise<Map<string, string>> {
  const args = ['diff-tree', '-r', '-p', '-U0', '--no-renames', '--no-color', '--no-ext-diff']
  const out = await git.exec([...args, '--no-textconv', from, to, '--'])
  const files = new Map<string, string>()
  let header = ''
  let lines: string[] = []
  const flush = () => {
    if (header) files.set(header, lines.join('\n'))
  }
  for (const line of out.stdout.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush()
      header = line
      lines = []
    } else if (line.startsWith('@@') || line.startsWith('index ')) continue
    else if (line.startsWith('+++ ') || line.startsWith('--- ')) continue
    else lines.push(line)
  }
  flush()
  return files
}

function conflict(moved: MovedBase, paths: string[], why = 'conflicts with'): GitConflictError {
  const named = paths.slice(0, 20)
  const what =
    why === 'conflicts with'
      ? `The approved change conflicts with what was pushed to ${moved.branch} during the run`
      : `The approved change, moved onto what was pushed to ${moved.branch} during the run, ${why}`
  return new GitConflictError(
    `${what} (origin is at ${moved.onto.slice(0, 12)}, the change was made on ${moved.from.slice(0, 12)}): ${named.join(', ')}. Nothing was pushed; rerun on the new ${moved.branch}.`,
    { rule: 'base-moved-conflict', branch: moved.branch, base_sha: moved.onto, paths: named }
  )
}

/**
 * HEAD's committed change replayed onto `moved.onto` (replayOnto) and checked to be exactly the
 * approved change there (assertMovedAsApproved); returns the moved tip and its commits.
 */
export async function replayAsApproved(
  git: Git,
  moved: MovedBase
): Promise<{ movedTip: string; made: MadeCommit[] }> {
  const tip = await git.revParse('HEAD')
  const movedTip = await replayOnto(git, moved, tip)
  await assertMovedAsApproved(git, moved, tip, movedTip)
  const made: MadeCommit[] = []
  for (const commit of await git.commitsSince(moved.onto, movedTip, 100)) {
    const { sha, diff } = await git.commitPatch(commit.sha)
    made.push({ sha, message: commit.message, patchId: patchId(diff), diff })
  }
  return { movedTip, made }
}
