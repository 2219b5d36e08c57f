import { githubClient, type GitHubClient, type GitHubClientOptions } from '../../github/index.js'
import { InvalidInputError, PermissionDeniedError } from '../../contract/index.js'

/** One review thread as the follow-up reads it (GraphQL `reviewThreads`). */
export interface ReviewThread {
  id: string
  path: string | null
  line: number | null
  isResolved: boolean
  isOutdated: boolean
  /** The thread's first comment, which says what to change. */
  body: string
  author: string | null
  /** The thread's latest comments (up to 20), oldest first: where Patchsmith's answers are. */
  latest: { body: string; author: string | null }[]
}

export interface PullRequestInfo {
  number: number
  title: string
  head: string
  headSha: string
  /** Who opened it (REST `user.login`). */
  author: string | null
  /** `owner/repo` the head branch lives in (a fork's, for a pull request from a fork). */
  headRepo: string | null
  base: string
  defaultBranch: string
  open: boolean
}

const THREADS = `query($owner: String!, $repo: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line
          first: comments(first: 1) { nodes { body author { login } } }
          latest: comments(last: 20) { nodes { body author { login } } }
        }
      }
    }
  }
  viewer { login }
}`
const VIEWER = `query { viewer { login } }`
const REPLY = `mutation($thread: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: { pullRequestReviewThreadId: $thread, body: $body }) { comment { id } }
}`
const RESOLVE = `mutation($thread: ID!) { resolveReviewThread(input: { threadId: $thread }) { thread { id isResolved } } }`
const WRITERS = new Set(['admin', 'maintain', 'write'])
// Every page is read; this only stops a server that never says it is done (100 000 threads).
const MAX_PAGES = 1_000

/**
 * A pull request as the follow-up meets it, over the GitHub API (REST and GraphQL): its head and
 * commits, its review threads and who may write, a failed run's log, and the replies.
 */
export class PullRequestReview {
  private readonly writers = new Map<string, boolean>()
  private messages?: Promise<string[]>

  private constructor(
    private readonly octokit: GitHubClient,
    readonly owner: string,
    readonly repo: string,
    readonly number: number
  ) {}

  static async open(
    token: string | undefined,
    repository: string | undefined,
    number: number,
    client: GitHubClientOptions
  ): Promise<PullRequestReview> {
    const [owner, repo] = (repository ?? '').split('/')
    if (!token || !owner || !repo) {
      throw new PermissionDeniedError(
        'A follow-up reads and answers the pull request through the GitHub API: it needs github-token and GITHUB_REPOSITORY (owner/repo).',
        { rule: 'follow-up-needs-token' }
      )
    }
    return new PullRequestReview(await githubClient(token, client), owner, repo, number)
  }

  private get where() {
    return { owner: this.owner, repo: this.repo }
  }

  async info(): Promise<PullRequestInfo> {
    const { data } = await this.octokit.rest.pulls.get({ ...this.where, pull_number: this.number })
    return {
      number: data.number,
      title: data.title,
      head: data.head.ref,
      headSha: data.head.sha,
      author: data.user?.login ?? null,
      headRepo: data.head.repo?.full_name ?? null,
      base: data.base.ref,
      defaultBranch: data.base.repo.default_branch,
      open: data.state === 'open'
    }
  }

  /** The token's user: who Patchsmith pushes and answers as here. */
  async viewer(): Promise<string | null> {
    const data = await this.octokit.graphql<{ viewer: { login: string } | null }>(VIEWER)
    return data.viewer?.login ?? null
  }

  /** The messages of the pull request's commits, oldest first (all pages: the API lists up to 250). */
  async commitMessages(): Promise<string[]> {
    this.messages ??= this.octokit
      .paginate(this.octokit.rest.pulls.listCommits, {
        ...this.where,
        pull_number: this.number,
        per_page: 100
      })
      .then((commits) => commits.map((commit) => commit.commit.message))
    return this.messages
  }

  async changedFiles(): Promise<string[]> {
    const files = await this.octokit.paginate(this.octokit.rest.pulls.listFiles, {
      ...this.where,
      pull_number: this.number,
      per_page: 100
    })
    return files.filter((file) => file.status !== 'removed').map((file) => file.filename)
  }

  /** The threads, and who Patchsmith is here (the token's user, author of its own replies). */
  async threads(): Promise<{ threads: ReviewThread[]; viewer: string | null }> {
    type Comments = { nodes: { body: string; author: { login: string } | null }[] }
    type Page = {
      viewer: { login: string } | null
      repository: {
        pullRequest: {
          reviewThreads: {
            pageInfo: { hasNextPage: boolean; endCursor: string | null }
            nodes: {
              id: string
              isResolved: boolean
              isOutdated: boolean
              path: string | null
              line: number | null
              first: Comments
              latest: Comments
            }[]
          }
        } | null
      }
    }
    const comment = (node: Comments['nodes'][number]) => ({
      body: node.body,
      author: node.author?.login ?? null
    })
    const threads: ReviewThread[] = []
    let viewer: string | null = null
    let after: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const data: Page = await this.octokit.graphql<Page>(THREADS, {
        ...this.where,
        number: this.number,
        after
      })
      viewer = data.viewer?.login ?? viewer
      const found = data.repository.pullRequest?.reviewThreads
      if (!found) return { threads, viewer }
      for (const node of found.nodes) {
        const first = node.first.nodes[0]
        threads.push({
          id: node.id,
          path: node.path,
          line: node.line,
          isResolved: node.isResolved,
          isOutdated: node.isOutdated,
          body: first?.body ?? '',
          author: first?.author?.login ?? null,
          latest: node.latest.nodes.map(comment)
        })
      }
      if (!found.pageInfo.hasNextPage || !found.pageInfo.endCursor) return { threads, viewer }
      after = found.pageInfo.endCursor
    }
    throw new InvalidInputError(
      `Stopped reading the review threads of #${this.number} after ${MAX_PAGES} pages (${threads.length} threads): GitHub kept saying there were more. Resolve or close old threads, then rerun.`,
      { rule: 'too-many-threads', threads: threads.length }
    )
  }

  /** Whether `login` may write to the repository (write, maintain or admin); asked once each. */
  async canWrite(login: string | null): Promise<boolean> {
    if (!login) return false
    const known = this.writers.get(login)
    if (known !== undefined) return known
    let allowed = false
    try {
      const { data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({
        ...this.where,
        username: login
      })
      allowed = WRITERS.has(data.role_name ?? data.permission)
    } catch {
      allowed = false
    }
    this.writers.set(login, allowed)
    return allowed
  }

  /** The log of the first failed job of a workflow run or check suite, with its name. */
  async failedLog(run: {
    runId?: number
    checkSuiteId?: number
  }): Promise<{ job: string; log: string } | undefined> {
    let jobs: { id: number; name: string; conclusion: string | null }[] = []
    if (run.runId) {
      const { data } = await this.octokit.rest.actions.listJobsForWorkflowRun({
        ...this.where,
        run_id: run.runId
      })
      jobs = data.jobs
    } else if (run.checkSuiteId) {
      const { data } = await this.octokit.rest.checks.listForSuite({
        ...this.where,
        check_suite_id: run.checkSuiteId
      })
      jobs = data.check_runs
    }
    const failed = jobs.find((job) => job.conclusion === 'failure')
    if (!failed) return undefined
    const { data } = await this.octokit.rest.actions.downloadJobLogsForWorkflowRun({
      ...this.where,
      job_id: failed.id
    })
    return { job: failed.name, log: typeof data === 'string' ? data : String(data) }
  }

  async reply(thread: string, body: string): Promise<void> {
    await this.octokit.graphql(REPLY, { thread, body })
  }

  async resolve(thread: string): Promise<void> {
    await this.octokit.graphql(RESOLVE, { thread })
  }

  async comment(body: string): Promise<void> {
    await this.octokit.rest.issues.createComment({ ...this.where, issue_number: this.number, body })
  }
}
