import type { RunConfig } from '../config.js'
import type { BranchPublisher } from '../git/index.js'
import { verifiedCommits } from '../github/index.js'
import type { RunnerFacts, Logger } from '../run/index.js'

/**
 * commit-signing: github publishes through the API; local git (undefined) pushes. `publishes`:
 * the run publishes a branch (default: push; a follow-up publishes its base with push: false).
 */
export function signingPublisher(
  config: RunConfig,
  facts: Pick<RunnerFacts, 'repository' | 'apiUrl' | 'gitDataTimeoutMs'>,
  logger: Pick<Logger, 'info' | 'warn'>,
  publishes = config.push
): BranchPublisher | undefined {
  if (config.commitSigning !== 'github' || !publishes || config.dryRun) return undefined
  return verifiedCommits({
    token: config.githubToken,
    repository: facts.repository,
    client: {
      apiUrl: facts.apiUrl,
      requestTimeoutMs: facts.gitDataTimeoutMs,
      warn: (message) => logger.warn(message)
    },
    info: (message) => logger.info(message)
  })
}
