/**
 * A loopback stand-in for the GitHub REST API (use its `url` as GITHUB_API_URL) that records
 * every call. It answers the few calls the action makes with plausible defaults; tests override
 * any answer with `route()`.
 */
import { createServer, type ServerResponse } from 'node:http'
import {
  pullsAnswer,
  type LoopbackPullRequest,
  type LoopbackRun,
  type PullsState
} from './github-pulls.js'
import { gitDataAnswer, type GitDataState } from './github-git-data.js'
import { listenOnLoopback, readBody } from './http.js'

export type { LoopbackPullRequest, LoopbackRun, LoopbackThread } from './github-pulls.js'
export { requireSignedCommits, type GitDataState } from './github-git-data.js'

export interface GitHubRequest {
  method: string
  /** The path without the query string, e.g. '/repos/acme/widgets/issues/7/comments'. */
  path: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body (the raw text when it is not JSON, undefined when empty). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

export interface GitHubRoute {
  method: string
  /** An exact path, or a pattern tested against the path. */
  path: string | RegExp
  /** Default 200. */
  status?: number
  /** A string is sent as-is, anything else as JSON. */
  body?: unknown
  headers?: Record<string, string>
  /** Only the first N matching requests, then fall through to older routes and the defaults. */
  times?: number
  /** Only GraphQL requests whose query this matches (POST /graphql). */
  query?: RegExp
}

export interface GitHubServer {
  /** e.g. 'http://127.0.0.1:PORT' */
  url: string
  requests: GitHubRequest[]
  /** Adds a route; later routes take precedence over earlier ones and over the defaults. */
  route(route: GitHubRoute): void
  /** A pull request (REST, and its GraphQL review threads, which record replies and resolutions). */
  pullRequest(pr: LoopbackPullRequest): LoopbackPullRequest
  /** A workflow run's jobs and their logs. */
  workflowRun(run: LoopbackRun): void
  /**
   * The Git Data API (trees, commits, refs) on this bare repository; the commits it makes
   * without an author are GitHub-signed (`verified`).
   */
  gitData(origin: string): GitDataState
  /** The issue comments as they stand (created by POST, edited by PATCH), oldest first. */
  comments: LoopbackComment[]
  close(): Promise<void>
}

export interface LoopbackComment {
  id: number
  issue: number
  body: string
  /** Every body it had, the first one included. */
  history: string[]
  /** Its author's login: the token's user (github-actions[bot]) unless a test says otherwise. */
  user?: string
  /** When it was last written, as GitHub gives it (`updated_at`, to the second); set by POST and PATCH. */
  updatedAt?: string
}

/** Now as GitHub writes a time: ISO 8601 to the second. */
export function githubTime(date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z')
}

interface Answer {
  status: number
  body?: unknown
  headers?: Record<string, string>
  /** Held until the client gives up (closes the request); then this is called, nothing sent. */
  holdUntilGivenUp?: () => void
}

interface ActiveRoute {
  route: GitHubRoute
  used: number
}

const REPO = '/repos/([^/]+)/([^/]+)'
const COMMENTS = new RegExp(`^${REPO}/issues/(\\d+)/comments$`)
const COMMENT = new RegExp(`^${REPO}/issues/comments/(\\d+)$`)
const LABELS = new RegExp(`^${REPO}/issues/(\\d+)/labels$`)
const ISSUE = new RegExp(`^${REPO}/issues/(\\d+)$`)
const GIT_REF = new RegExp(`^${REPO}/git/refs/.+$`)
const PERMISSION = new RegExp(`^${REPO}/collaborators/([^/]+)/permission$`)

export async function startGitHubServer(): Promise<GitHubServer> {
  const routes: ActiveRoute[] = []
  const requests: GitHubRequest[] = []
  const pulls: PullsState = { pulls: new Map(), runs: new Map() }
  let nextCommentId = 1000
  const comments: LoopbackComment[] = []
  let gitData: GitDataState | undefined

  const server = createServer((req, res) => {
    void readBody(req)
      .then((body) => {
        const request: GitHubRequest = {
          method: (req.method ?? 'GET').toUpperCase(),
          path: (req.url ?? '/').split('?')[0],
          headers: req.headers,
          body
        }
        requests.push(request)
        const answer: Answer =
          fromRoutes(request) ??
          pullsAnswer(pulls, request) ??
          gitDataAnswer(gitData, request) ??
          byDefault(request)
        const { holdUntilGivenUp } = answer
        if (holdUntilGivenUp) res.once('close', holdUntilGivenUp)
        else send(res, answer)
      })
      .catch((error: unknown) => {
        send(res, { status: 500, body: { message: String(error) } })
      })
  })

  function fromRoutes(request: GitHubRequest): Answer | undefined {
    for (let i = routes.length - 1; i >= 0; i--) {
      const active = routes[i]
      const { route } = active
      if (route.method.toUpperCase() !== request.method) continue
      const matches =
        typeof route.path === 'string' ? route.path === request.path : route.path.test(request.path)
      if (!matches) continue
      if (route.query && !route.query.test(String(request.body?.query ?? ''))) continue
      if (route.times !== undefined && active.used >= route.times) continue
      active.used += 1
      return { status: route.status ?? 200, body: route.body, headers: route.headers }
    }
    return undefined
  }

  function byDefault({ method, path, body }: GitHubRequest): Answer {
    let match: RegExpExecArray | null
    // GitHub's own limit on a comment body.
    if ((COMMENTS.test(path) || COMMENT.test(path)) && String(body?.body ?? '').length > 65_536)
      return {
        status: 422,
        body: { message: 'Validation Failed: body is too long (maximum is 65536 characters)' }
      }
    if (method === 'POST' && (match = COMMENTS.exec(path))) {
      const [, owner, repo, number] = match
      const id = nextCommentId++
      const text = String(body?.body ?? '')
      comments.push({
        id,
        issue: Number(number),
        body: text,
        history: [text],
        updatedAt: githubTime()
      })
      return {
        status: 201,
        body: {
          id,
          body: body?.body,
          html_url: `https://github.com/${owner}/${repo}/issues/${number}#issuecomment-${id}`
        }
      }
    }
    if (method === 'GET' && (match = COMMENTS.exec(path))) {
      const issue = Number(match[3])
      const listed = comments.filter((comment) => comment.issue === issue)
      return {
        status: 200,
        body: listed.map(({ id, body, user, updatedAt }) => ({
          id,
          body,
          user: { login: user ?? 'github-actions[bot]', type: user ? 'User' : 'Bot' },
          ...(updatedAt ? { updated_at: updatedAt } : {})
        }))
      }
    }
    if (method === 'PATCH' && (match = COMMENT.exec(path))) {
      const comment = comments.find((c) => c.id === Number(match![3]))
      if (!comment) return { status: 404, body: { message: 'Not Found' } }
      comment.body = String(body?.body ?? '')
      comment.history.push(comment.body)
      comment.updatedAt = githubTime()
      return { status: 200, body: { id: comment.id, body: comment.body } }
    }
    if (method === 'POST' && LABELS.test(path)) {
      const labels: unknown[] = Array.isArray(body?.labels) ? body.labels : []
      return { status: 200, body: labels.map((name) => ({ name })) }
    }
    if (method === 'GET' && (match = ISSUE.exec(path))) {
      const number = Number(match[3])
      return { status: 200, body: { number, title: `Issue ${number}`, body: '', labels: [] } }
    }
    if (method === 'DELETE' && GIT_REF.test(path)) return { status: 204 }
    if (method === 'GET' && (match = PERMISSION.exec(path))) {
      // Everyone is a maintainer unless a test routes otherwise.
      const login = decodeURIComponent(match[3]!)
      return { status: 200, body: { permission: 'admin', role_name: 'admin', user: { login } } }
    }
    return { status: 404, body: { message: 'Not Found' } }
  }

  const listening = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${listening.port}`,
    requests,
    comments,
    route(route) {
      routes.push({ route, used: 0 })
    },
    pullRequest(pr) {
      pulls.pulls.set(pr.number, pr)
      return pr
    },
    workflowRun(run) {
      pulls.runs.set(run.id, run)
    },
    gitData(origin) {
      gitData = { origin, verified: new Set() }
      return gitData
    },
    close: listening.close
  }
}

function send(res: ServerResponse, answer: Answer): void {
  if (answer.status === 204 || answer.body === undefined) {
    res.writeHead(answer.status, answer.headers)
    res.end()
    return
  }
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    ...answer.headers
  })
  res.end(text)
}
