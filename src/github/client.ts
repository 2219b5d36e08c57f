import type { getOctokit } from '@actions/github'

export type GitHubClient = ReturnType<typeof getOctokit>

export interface GitHubClientOptions {
  /** GITHUB_API_URL (default https://api.github.com). */
  apiUrl?: string
  /** Retries of a rate-limited request (the wait is what GitHub says, up to `maxWaitSeconds`). */
  rateLimitRetries?: number
  maxWaitSeconds?: number
  /** How long one request waits for its answer, where the caller sets a time-out. */
  requestTimeoutMs?: number
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
  const [{ getOctokit }, { retry }, { throttling }, { default: Bottleneck }] = await Promise.all([
    import('@actions/github'),
    import('@octokit/plugin-retry'),
    import('@octokit/plugin-throttling'),
    import('bottleneck/light.js')
  ])
  const baseUrl = options.apiUrl || 'https://api.github.com'
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
      baseUrl,
      throttle: {
        onRateLimit: onLimit('rate limit'),
        onSecondaryRateLimit: onLimit('secondary rate limit'),
        // GitHub.com asks for a second between writes (three after a notifying one); a GitHub
        // Enterprise Server has no such rule unless its admin sets rate limits, and then
        // answers 429/403, which the handlers above wait out.
        ...(spacesWrites(baseUrl)
          ? {}
          : {
              write: new Bottleneck.Group({ maxConcurrent: 1 }),
              notifications: new Bottleneck.Group({ maxConcurrent: 1 })
            })
      },
      // 429s are the throttling plugin's: it waits as long as GitHub says.
      retry: { retries: 2, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
      log: { debug: () => undefined, info: () => undefined, warn, error: warn }
    },
    retry,
    throttling
  )
}

/** GitHub.com and GitHub Enterprise Cloud with data residency (`api.<tenant>.ghe.com`). */
function spacesWrites(apiUrl: string): boolean {
  const host = new URL(apiUrl).hostname.toLowerCase()
  return host === 'api.github.com' || host.endsWith('.ghe.com')
}
