import type { CodeAgentInput } from '../contract/index.js'
import type { ModelClient } from '../model/index.js'
import type { PathPolicy } from '../policy/index.js'
import type { Drafter } from './drafting.js'
import type { Logger } from './logger.js'

/** What an input builder may use: the run's policy, its model client (made on first use). */
export interface InputContext {
  repoDir: string
  policy: PathPolicy
  model: () => ModelClient
  logger: Logger
}

/**
 * The seams the adapters (src/adapters) use to bring another contract onto this engine: how the
 * input is built, how each attempt is drafted, how the commit message ends. Each is optional;
 * without them a run loads its input from the settings and drafts one call per planned file.
 */
export interface RunHooks {
  loadInput?: (ctx: InputContext) => Promise<CodeAgentInput>
  drafter?: Drafter
  /** Rewrites each commit message before it is committed (trailers, no `Fixes #N`). */
  commitMessage?: (message: string) => string
  /**
   * Planned files a draft may leave as they are (`NO_CHANGES`): a follow-up on a failed check
   * plans every file of the pull request, and only some need a change. Asked after loadInput.
   */
  mayStayUnchanged?: (path: string) => boolean
}
