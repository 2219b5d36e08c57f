import type { getOctokit } from '@actions/github'

export type GitHubClient = ReturnType<typeof getOctokit>

export interface GitHubClientOptions {
  /** Retries of a rate-limited request (the wait is what GitHub says, up to `maxWaitSeconds`). */
  rateLimitRetries?: number
  maxWaitSeconds?: number
  warn?: (message: string) => void
}

/**
 * Octokit for the GitHub API (GITHUB_API_URL): 5xx and network failures retried with backoff
 * (plugin-retry), rate limits (429, or 403 with the rate-limit headers) waited out and retried
 * a bounded number of times (plugin-throttling), writes spaced as GitHub asks. Loaded on first
 * use: most runs never talk to the API, and octokit costs start-up time.
 */
export async function githubClient(
  token: string,
  options: GitHubClientOptions = {}
): Promise<GitHubClient> {
  const [{ getOctokit }, { retry }, { throttling }] = await Promise.all([
    import('@actions/github'),
    import('@octokit/plugin-retry'),
    import('@octokit/plugin-throttling')
  ])
  const retries = options.rateLimitRetries ?? 2
  const maxWait = options.maxWaitSeconds ?? 60
  const warn = options.warn ?? (() => undefined)
  const onLimit =
    (kind: string) =>
    (
      retryAfter: number,
      request: { method?: string; url?: string },
      _octokit: unknown,
      count: number
    ) => {
      const again = count < retries && retryAfter <= maxWait
      warn(
        `GitHub ${kind} on ${request.method ?? ''} ${request.url ?? ''}: ` +
          (again ? `retrying in ${retryAfter} s` : 'giving up')
      )
      return again
    }
  return getOctokit(
    token,
    {
      // Read now, not when @actions/github was loaded.
      baseUrl: process.env.GITHUB_API_URL || 'https://api.github.com',
      throttle: {
        onRateLimit: onLimit('rate limit'),
        onSecondaryRateLimit: onLimit('secondary rate limit')
      },
      // 429s are the throttling plugin's: it waits as long as GitHub says.
      retry: { retries: 2, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
      log: { debug: () => undefined, info: () => undefined, warn, error: warn }
    },
    retry,
    throttling
  )
}
