import { githubClient, type GitHubClientOptions } from './client.js'

export interface IssueFeedbackOptions {
  token: string
  /** `owner/repo` */
  repository: string
  issueNumber: number
  label: string
  client?: GitHubClientOptions
}

const REQUEST_TIMEOUT_MS = 60_000

/**
 * Posts the failure comment and adds the label; returns what it could not do, each as a
 * sentence a maintainer can act on. Never throws: the run has failed already.
 */
export async function postFailureFeedback(
  options: IssueFeedbackOptions,
  body: string | undefined
): Promise<string[]> {
  const [owner = '', repo = ''] = options.repository.split('/')
  const problems: string[] = []
  if (!owner || !repo) return [`"${options.repository}" is not an owner/repo name`]
  const octokit = await githubClient(options.token, options.client)
  const target = { owner, repo, issue_number: options.issueNumber }
  const request = () => ({ signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  // No body: the run's progress comment tells the failure.
  if (body !== undefined) {
    try {
      await octokit.rest.issues.createComment({ ...target, body, request: request() })
    } catch (error) {
      problems.push(`comment: ${explainFailure(error, options, 'comment on')}`)
    }
  }
  if (options.label) {
    try {
      await octokit.rest.issues.addLabels({
        ...target,
        labels: [options.label],
        request: request()
      })
    } catch (error) {
      problems.push(`label: ${explainFailure(error, options, 'label')}`)
    }
  }
  return problems
}

/** A refused or failed request to an issue, as a sentence a maintainer can act on. */
export function explainFailure(
  error: unknown,
  options: { repository: string; issueNumber: number },
  action: string
): string {
  const status = (error as { status?: unknown }).status
  const message = error instanceof Error ? error.message : String(error)
  const issue = `issue #${options.issueNumber} of ${options.repository}`
  switch (status) {
    case 401:
      return `GitHub refused the token (401 ${message}); check github-token.`
    case 403:
      return /rate limit/i.test(message)
        ? `GitHub's rate limit held after the retries (403 ${message}).`
        : `the token may not ${action} ${issue} (403 ${message}); grant the job "issues: write".`
    case 404:
      return `${issue} was not found, or the token cannot see it (404).`
    case 410:
      return `issues are disabled in ${options.repository} (410).`
    case 422:
      return `GitHub did not accept it (422 ${message}).`
    case 429:
      return `GitHub's rate limit held after the retries (429 ${message}).`
    default:
      return typeof status === 'number' ? `GitHub answered ${status}: ${message}` : message
  }
}
