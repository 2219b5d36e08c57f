import { githubClient, type GitHubClient, type GitHubClientOptions } from './client.js'
import { explainFailure } from './issue-feedback.js'

interface LiveCommentOptions {
  token: string
  /** `owner/repo` */
  repository: string
  issueNumber: number
  /** A hidden line the body starts with: how a rerun finds the comment again. */
  marker: string
  /** Look for the marker among the issue's comments before creating one (a rerun). */
  findExisting: boolean
  client?: GitHubClientOptions
  warn: (message: string) => void
}

const REQUEST_TIMEOUT_MS = 30_000
/** GitHub refuses a comment body over 65 536 characters (422): a longer one is cut below it. */
const COMMENT_CHARS = 65_536
const CUT_NOTE =
  '\n\n_[… cut: the comment was longer than GitHub allows; the job summary has it all]_'

/**
 * One issue comment that is created once and then edited: each `show` queues at most one
 * request (an unchanged body none), in order, without holding up the caller. After a refusal
 * it stops asking: a token that may not comment will not be allowed on the next phase either.
 */
export class LiveComment {
  /** The comment's id once created or found. */
  id?: number
  /** Why the comment could not be written, once it could not. */
  problem?: string
  private queued = ''
  private queue: Promise<void> = Promise.resolve()
  private octokit?: GitHubClient
  private readonly owner: string
  private readonly repo: string

  constructor(private readonly options: LiveCommentOptions) {
    const [owner = '', repo = ''] = options.repository.split('/')
    this.owner = owner
    this.repo = repo
    if (!owner || !repo) this.problem = `"${options.repository}" is not an owner/repo name`
  }

  show(body: string): void {
    const text = fitted(`${this.options.marker}\n${body}`)
    if (text === this.queued) return
    this.queued = text
    this.queue = this.queue.then(() => this.write(text))
  }

  /** Shows the body and waits for every queued write. */
  async settle(body?: string): Promise<void> {
    if (body !== undefined) this.show(body)
    await this.queue
  }

  private async write(body: string): Promise<void> {
    if (this.problem) return
    const target = { owner: this.owner, repo: this.repo, issue_number: this.options.issueNumber }
    const request = { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }
    try {
      this.octokit ??= await githubClient(this.options.token, this.options.client)
      if (this.id === undefined && this.options.findExisting) this.id = await this.find(target)
      if (this.id === undefined) {
        const { data } = await this.octokit.rest.issues.createComment({ ...target, body, request })
        this.id = data.id
      } else {
        await this.octokit.rest.issues.updateComment({
          owner: this.owner,
          repo: this.repo,
          comment_id: this.id,
          body,
          request
        })
      }
    } catch (error) {
      this.problem = explainFailure(error, this.options, 'comment on')
      this.options.warn(`Progress comment: ${this.problem}`)
    }
  }

  /**
   * The newest comment of the first page that the token's user wrote and that starts with the
   * marker (two requests). Anyone can post a comment starting with the marker (the run id is
   * public): only our own is edited, and when the token's user is unknown a new one is made.
   */
  private async find(target: {
    owner: string
    repo: string
    issue_number: number
  }): Promise<number | undefined> {
    const signal = () => AbortSignal.timeout(REQUEST_TIMEOUT_MS)
    const me = await this.octokit!.graphql<{ viewer: { login: string } | null }>(
      'query { viewer { login } }',
      { request: { signal: signal() } }
    ).then(
      (data) => data.viewer?.login,
      () => undefined
    )
    if (!me) return undefined
    const { data } = await this.octokit!.rest.issues.listComments({
      ...target,
      per_page: 100,
      request: { signal: signal() }
    })
    const mine = data.filter(
      (comment) =>
        sameUser(comment.user?.login ?? '') === sameUser(me) &&
        comment.body?.startsWith(this.options.marker)
    )
    return mine[mine.length - 1]?.id
  }
}

/** GraphQL names a bot `github-actions`, REST `github-actions[bot]`. */
function sameUser(login: string): string {
  return login.toLowerCase().replace(/\[bot\]$/, '')
}

/** The body cut to GitHub's limit, with a note saying so. */
function fitted(text: string): string {
  if (text.length <= COMMENT_CHARS) return text
  return `${text.slice(0, COMMENT_CHARS - CUT_NOTE.length)}${CUT_NOTE}`
}
