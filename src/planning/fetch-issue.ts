import { InvalidInputError, worldFailure } from '../contract/index.js'
import { githubClient } from '../github/index.js'

interface IssueFetch {
  token?: string
  /** `owner/repo` (GITHUB_REPOSITORY). */
  repository?: string
  /** GITHUB_API_URL */
  apiUrl?: string
  warn?: (message: string) => void
}

/**
 * The issue from the GitHub API (GITHUB_API_URL), with the client's retries: rate limits are
 * waited out as GitHub asks, 5xx and network failures retried. A missing issue is bad input.
 */
export async function fetchIssue(number: number, options: IssueFetch): Promise<unknown> {
  const field = 'issue-number'
  const [owner, repo] = (options.repository ?? '').split('/')
  if (!owner || !repo) {
    throw new InvalidInputError(
      `"issue-number" needs the repository as owner/repo (GITHUB_REPOSITORY) to fetch issue #${number}.`,
      { field }
    )
  }
  if (!options.token) {
    throw new InvalidInputError(`"issue-number" needs "github-token" to fetch issue #${number}.`, {
      field
    })
  }
  const client = await githubClient(options.token, { apiUrl: options.apiUrl, warn: options.warn })
  try {
    const { data } = await client.rest.issues.get({ owner, repo, issue_number: number })
    return data
  } catch (error) {
    const status = (error as { status?: number }).status
    if (status === 404 || status === 410) {
      throw new InvalidInputError(`Issue #${number} not found`, {
        field,
        issue_number: number,
        status
      })
    }
    // GitHub's own faults (5xx, rate limits, no answer) are named as such by the run's report.
    if (worldFailure(error)?.code === 'GITHUB_API_ERROR') throw error
    throw new InvalidInputError(`Could not fetch issue #${number}: ${(error as Error).message}`, {
      field,
      issue_number: number,
      ...(status ? { status } : {})
    })
  }
}
