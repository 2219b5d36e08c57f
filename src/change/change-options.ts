import type { BranchPublisher, PushAuth } from '../git/index.js'
import type { RunJournal } from '../run-state/index.js'

export interface ChangeBranchOptions {
  branch: string
  /** The branch to start from; the checked-out branch when absent. */
  baseBranch?: string
  /**
   * true (default): the commit goes on the plan's branch, which is pushed. false: it goes on the
   * base branch, unpushed, where a pull-request step (create-pull-request) picks it up.
   */
  push?: boolean
  /**
   * With push: false, the commit goes on the plan's branch all the same and the branch the run
   * started on is checked out again at the end, as it was (the CLI, where it is a person's own
   * branch); without it push: false commits on the base for a pull-request step.
   */
  keepStart?: boolean
  /**
   * A commit on the base (commitsOnBase) also gets a branch of the plan's name, for the
   * pull-request step (default); false: the base alone (a follow-up's).
   */
  handOffBranch?: boolean
  /** A commit on the base is published to origin's base branch (a follow-up's pull request). */
  publishBase?: boolean
  /** Credentials for the commands that talk to origin. */
  auth?: PushAuth
  /** The plan's paths: uncommitted changes to them are refused, others are stashed. */
  plannedPaths?: readonly string[]
  /**
   * List the user's untracked files (default), for the validation watch to start from. Not
   * needed when validation runs on an overlay of the work tree (the watch then knows what it
   * touched).
   */
  untracked?: boolean
  /** Branches the change must never go to (the repository's default branch). */
  protectedBranches?: readonly string[]
  /** Where each change to the repository is recorded first, for a run that dies (SIGKILL). */
  journal?: RunJournal
  /** Publishes the branch instead of `git push` (commit-signing: github). */
  publisher?: BranchPublisher
}
