import { githubClient, type GitHubClient, type GitHubClientOptions } from '../../report/index.js'
import { PermissionDeniedError } from '../../contract/index.js'

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
  /** The later comments of the thread, in order. */
  replies: { body: string; author: string | null }[]
}

export interface PullRequestInfo {
  number: number
  title: string
  head: string
  headSha: string
  base: string
}

const THREADS = `query($owner: String!, $repo: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line
          comments(first: 50) { nodes { body author { login } } }
        }
      }
    }
  }
}`
const REPLY = `mutation($thread: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: { pullRequestReviewThreadId: $thread, body: $body }) { comment { id } }
}`
const RESOLVE = `mutation($thread: ID!) { resolveReviewThread(input: { threadId: $thread }) { thread { id isResolved } } }`
const WRITERS = new Set(['admin', 'maintain', 'write'])
const MAX_PAGES = 10

/**
 * A pull request as the follow-up meets it, over the GitHub API (REST and GraphQL): its head and
 * commits, its review threads and who may write, a failed run's log, and the replies.
 */
export class PullRequestReview {
  private readonly writers = new Map<string, boolean>()

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
      base: data.base.ref
    }
  }

  /** The messages of the pull request's commits (up to 250, as the API lists them). */
  async commitMessages(): Promise<string[]> {
    const { data } = await this.octokit.rest.pulls.listCommits({
      ...this.where,
      pull_number: this.number,
      per_page: 100
    })
    return data.map((commit) => commit.commit.message)
  }

  async changedFiles(): Promise<string[]> {
    const { data } = await this.octokit.rest.pulls.listFiles({
      ...this.where,
      pull_number: this.number,
      per_page: 100
    })
    return data.filter((file) => file.status !== 'removed').map((file) => file.filename)
  }

  async threads(): Promise<ReviewThread[]> {
    type Page = {
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
              comments: { nodes: { body: string; author: { login: string } | null }[] }
            }[]
          }
        } | null
      }
    }
    const threads: ReviewThread[] = []
    let after: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const data: Page = await this.octokit.graphql<Page>(THREADS, {
        ...this.where,
        number: this.number,
        after
      })
      const found = data.repository.pullRequest?.reviewThreads
      if (!found) break
      for (const node of found.nodes) {
        const [first, ...rest] = node.comments.nodes
        threads.push({
          id: node.id,
          path: node.path,
          line: node.line,
          isResolved: node.isResolved,
          isOutdated: node.isOutdated,
          body: first?.body ?? '',
          author: first?.author?.login ?? null,
          replies: rest.map((comment) => ({
            body: comment.body,
            author: comment.author?.login ?? null
          }))
        })
      }
      if (!found.pageInfo.hasNextPage) break
      after = found.pageInfo.endCursor
    }
    return threads
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
