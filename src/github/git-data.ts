import {
  GitConflictError,
  PatchsmithError,
  PermissionDeniedError,
  worldFailure
} from '../contract/index.js'
import { githubClient, type GitHubClient, type GitHubClientOptions } from './client.js'

/** One entry of a tree the API builds on a base tree: a text file's content, or a deletion. */
export type TreeMode = '100644' | '100755' | '040000' | '160000' | '120000'
export type TreeEntry =
  | { path: string; mode: TreeMode; type: 'blob'; content: string }
  | { path: string; mode: TreeMode; type: 'blob' | 'commit'; sha: string | null }

const REQUEST_TIMEOUT_MS = 60_000

/**
 * The Git Data API of one repository: trees, commits and branch refs. Commits are made without
 * an author or committer, so GitHub signs them (Verified) as the token's identity. Every
 * request is counted; a refusal becomes an error a maintainer can act on.
 */
export class GitData {
  requests = 0
  private octokit?: GitHubClient
  private readonly owner: string
  private readonly repo: string

  constructor(
    private readonly token: string,
    repository: string,
    private readonly client: GitHubClientOptions = {}
  ) {
    const [owner = '', repo = ''] = repository.split('/')
    this.owner = owner
    this.repo = repo
  }

  /** The SHA of `baseTree` with `entries` put in (deletions included). */
  async createTree(baseTree: string, entries: readonly TreeEntry[], branch: string) {
    const { data } = await this.call(branch, 'make the tree', (octokit, target) =>
      octokit.rest.git.createTree({ ...target, base_tree: baseTree, tree: [...entries] })
    )
    return data.sha
  }

  /** A commit with exactly this message, tree and parent; whether GitHub verified it. */
  async createCommit(message: string, tree: string, parent: string, branch: string) {
    const { data } = await this.call(branch, 'make the commit', (octokit, target) =>
      octokit.rest.git.createCommit({ ...target, message, tree, parents: [parent] })
    )
    return { sha: data.sha, verified: data.verification?.verified === true }
  }

  /** Creates the branch at `sha`, or moves it there from `from` (a fast-forward only). */
  async setBranch(branch: string, sha: string, from: string | undefined): Promise<void> {
    await this.call<unknown>(
      branch,
      from ? 'move the branch' : 'create the branch',
      (octokit, target) =>
        from
          ? octokit.rest.git.updateRef({ ...target, ref: `heads/${branch}`, sha, force: false })
          : octokit.rest.git.createRef({ ...target, ref: `refs/heads/${branch}`, sha })
    )
  }

  /** The branch put back where it was (`from`), or deleted when this run created it. */
  async restoreBranch(branch: string, from: string | undefined): Promise<void> {
    await this.call<unknown>(branch, 'put the branch back', (octokit, target) =>
      from
        ? octokit.rest.git.updateRef({ ...target, ref: `heads/${branch}`, sha: from, force: true })
        : octokit.rest.git.deleteRef({ ...target, ref: `heads/${branch}` })
    )
  }

  private async call<T>(
    branch: string,
    step: string,
    request: (
      octokit: GitHubClient,
      target: { owner: string; repo: string; request: { signal: AbortSignal } }
    ) => Promise<T>
  ): Promise<T> {
    this.octokit ??= await githubClient(this.token, this.client)
    this.requests++
    const timeoutMs = this.client.requestTimeoutMs ?? REQUEST_TIMEOUT_MS
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      return await request(this.octokit, {
        owner: this.owner,
        repo: this.repo,
        request: { signal }
      })
    } catch (error) {
      const failure = apiError(error, branch, step, `${this.owner}/${this.repo}`)
      // The client's own time-out (octokit reports it as a 500): say so, not "500".
      if (signal.aborted) Object.assign(failure.details, { timeout_ms: timeoutMs })
      throw failure
    }
  }
}

/** A refused API request as the run's error: never the token, never the request's headers. */
function apiError(
  error: unknown,
  branch: string,
  step: string,
  repository: string
): PatchsmithError {
  const status = (error as { status?: unknown }).status
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 500)
  const details = { branch, status, step }
  const what = `commit-signing: github could not ${step} for "${branch}" in ${repository}`
  if (status === 422 && /fast forward|already exists/i.test(message))
    return new GitConflictError(`${what}: the branch changed on GitHub meanwhile (${message}).`, {
      ...details,
      rule: 'push-rejected-conflict'
    })
  if (status === 401 || status === 403 || status === 404)
    return new PermissionDeniedError(
      `${what} (${status} ${message}): give the token "contents: write" on the repository.`,
      { ...details, rule: 'push-not-allowed' }
    )
  // 5xx after the client's retries, no answer, a time-out: GitHub's side or the network's.
  const world = worldFailure(error)
  if (world?.code === 'GITHUB_API_ERROR' || lostAnswer(error))
    return new PatchsmithError(
      'GITHUB_API_ERROR',
      `${what}: ${world?.message ?? `GitHub's API did not answer (${message}). Rerun later (https://www.githubstatus.com).`}`,
      { ...details, ...(world?.details ?? {}) },
      true
    )
  return new PermissionDeniedError(
    `${what} (${typeof status === 'number' ? `${status} ` : ''}${message}); is the base commit on GitHub?`,
    { ...details, rule: 'signed-commit-failed' }
  )
}

/** A request whose answer never came (octokit passes a time-out or an abort through as it is). */
function lostAnswer(error: unknown): boolean {
  const name = (error as { name?: unknown }).name
  const status = (error as { status?: unknown }).status
  return (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    (typeof status === 'number' && status >= 500)
  )
}
