import type { Git } from './git.js'

/** The commits to publish: `base..tip` of the local repository, oldest first. */
export interface PublishRequest {
  branch: string
  /** The commit on origin the first of them goes on. */
  base: string
  tip: string
  /** The branch's tip on origin now (it is moved forward); undefined: the branch is created. */
  remoteTip?: string
  /** Credentials for the fetch that reads what was published back from origin. */
  fetchEnv?: Record<string, string>
}

/**
 * Puts the branch on origin by another way than `git push` (the GitHub API's verified
 * commits): the same trees and messages, new SHAs. `record` gets the new commits before any
 * ref on origin moves, so a journal can undo them. Returns each local commit's counterpart.
 */
export interface BranchPublisher {
  publish(
    git: Git,
    request: PublishRequest,
    record: (published: readonly string[]) => void
  ): Promise<Map<string, string>>
}
