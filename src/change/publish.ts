import { InvalidInputError } from '../contract/index.js'
import { pushError, type BranchPublisher, type Git, type PushAuth } from '../git/index.js'
import { REMOTE } from './branch-preflight.js'

/** A branch to put on origin, whatever the mode: a plan's branch, a task file's, a pull request's. */
interface Publication {
  git: Git
  /** The branch on origin (refs/heads/<branch>). */
  branch: string
  /** The local ref holding the commits: `HEAD` (on the branch) or `refs/heads/<name>`. */
  ref: string
  /** The commit on origin the first new commit goes on (a verified publish rebuilds from it). */
  base: string
  /** The branch's tip on origin now (it is moved forward); undefined: the branch is created. */
  remoteTip?: string
  auth?: PushAuth
  /** commit-signing: github (verifiedCommits); undefined: `git push`. */
  publisher?: BranchPublisher
  /** Branches never published to (the repository's default branch). */
  protectedBranches?: readonly string[]
  /** Told the new commits a publisher made, before any ref on origin moves (the journal). */
  record?: (published: readonly string[]) => void
}

/**
 * The one way a branch goes to origin. A plain push: never forced, fast-forward only, to
 * refs/heads/<branch>; a refusal is the push error it is. With a publisher (commit-signing:
 * github) the commits are made again through the API, same trees and messages, and the local ref
 * is moved onto them (the index and work tree already match). Returns each local commit's
 * published counterpart, or undefined after a plain push.
 */
export async function publish(target: Publication): Promise<Map<string, string> | undefined> {
  const { git, branch, ref, auth, publisher } = target
  if (target.protectedBranches?.includes(branch))
    throw new InvalidInputError(`Refusing to push to the default branch ${branch}.`, {
      field: 'base-branch',
      rule: 'base-branch'
    })
  if (!publisher) {
    const out = await git.push(REMOTE, `${ref}:refs/heads/${branch}`, auth?.env)
    if (out.exitCode !== 0) throw pushError(branch, out)
    return undefined
  }
  const tip = await git.revParse(ref)
  const published = await publisher.publish(
    git,
    { branch, base: target.base, tip, remoteTip: target.remoteTip, fetchEnv: auth?.env },
    target.record ?? (() => undefined)
  )
  const head = [...published.values()].at(-1) ?? tip
  await git.exec(['update-ref', '-m', 'patchsmith: verified commit', ref, head, tip])
  return published
}
