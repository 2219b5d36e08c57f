/**
 * The pull-request side of the loopback GitHub server: a pull request's REST endpoints (the pull
 * itself, its commits and files), the GraphQL review threads with their reply and resolve
 * mutations, and a workflow run's jobs and logs. Tests set the state; replies and resolutions are
 * recorded on it, as GitHub would keep them.
 */

export interface LoopbackThread {
  id: string
  path: string | null
  line: number | null
  isResolved?: boolean
  isOutdated?: boolean
  comments: { body: string; author: string | null }[]
}

export interface LoopbackPullRequest {
  number: number
  title: string
  head: string
  headSha: string
  /** Who opened it (default the token's user, github-actions[bot]). */
  author?: string
  /** Where the head branch lives (default acme/widgets: this repository). */
  headRepo?: string
  base: string
  /** Default 'open'. */
  state?: 'open' | 'closed'
  /** The messages of its commits, oldest first. */
  commits: string[]
  files: string[]
  threads: LoopbackThread[]
}

export interface LoopbackRun {
  id: number
  jobs: { id: number; name: string; conclusion: string }[]
  /** Job id → its log text. */
  logs: Record<number, string>
}

export interface PullsState {
  pulls: Map<number, LoopbackPullRequest>
  runs: Map<number, LoopbackRun>
}

interface Answer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** Whom the loopback token belongs to: the author of the action's own replies. */
const BOT = 'github-actions[bot]'
const REPO = '/repos/([^/]+)/([^/]+)'
const PULL = new RegExp(`^${REPO}/pulls/(\\d+)(/commits|/files)?$`)
const RUN_JOBS = new RegExp(`^${REPO}/actions/runs/(\\d+)/jobs$`)
const JOB_LOGS = new RegExp(`^${REPO}/actions/jobs/(\\d+)/logs$`)

export function pullsAnswer(
  state: PullsState,
  request: { method: string; path: string; body: any } // eslint-disable-line @typescript-eslint/no-explicit-any
): Answer | undefined {
  const { method, path, body } = request
  let match: RegExpExecArray | null
  if (method === 'GET' && (match = PULL.exec(path))) {
    const pr = state.pulls.get(Number(match[3]))
    if (!pr) return { status: 404, body: { message: 'Not Found' } }
    if (match[4] === '/commits')
      return {
        status: 200,
        body: pr.commits.map((message, i) => ({
          sha: `${i}`.padStart(40, '0'),
          commit: { message }
        }))
      }
    if (match[4] === '/files')
      return { status: 200, body: pr.files.map((filename) => ({ filename, status: 'modified' })) }
    return {
      status: 200,
      body: {
        number: pr.number,
        title: pr.title,
        state: pr.state ?? 'open',
        user: { login: pr.author ?? BOT },
        head: { ref: pr.head, sha: pr.headSha, repo: { full_name: pr.headRepo ?? 'acme/widgets' } },
        base: { ref: pr.base, repo: { full_name: 'acme/widgets', default_branch: 'main' } }
      }
    }
  }
  if (method === 'GET' && (match = RUN_JOBS.exec(path))) {
    const run = state.runs.get(Number(match[3]))
    return run
      ? { status: 200, body: { total_count: run.jobs.length, jobs: run.jobs } }
      : { status: 404, body: { message: 'Not Found' } }
  }
  if (method === 'GET' && (match = JOB_LOGS.exec(path))) {
    const job = Number(match[3])
    const log = [...state.runs.values()].find((run) => run.logs[job] !== undefined)?.logs[job]
    return log === undefined
      ? { status: 404, body: { message: 'Not Found' } }
      : { status: 200, body: log, headers: { 'content-type': 'text/plain' } }
  }
  if (method === 'POST' && path === '/graphql') return graphql(state, body)
  return undefined
}

function graphql(
  state: PullsState,
  body: { query?: string; variables?: Record<string, unknown> }
): Answer {
  const query = body?.query ?? ''
  const vars = body?.variables ?? {}
  const thread = (id: unknown) =>
    [...state.pulls.values()].flatMap((pr) => pr.threads).find((t) => t.id === id)
  if (query.includes('reviewThreads')) {
    const pr = state.pulls.get(Number(vars.number))
    const comment = (c: { body: string; author: string | null }) => ({
      body: c.body,
      author: c.author ? { login: c.author } : null
    })
    // Pages as GitHub gives them: `first` threads after the cursor (an offset here).
    const size = Number(/reviewThreads\(first:\s*(\d+)/.exec(query)?.[1] ?? 100)
    const start = vars.after ? Number(vars.after) : 0
    const all = pr?.threads ?? []
    const nodes = all.slice(start, start + size).map((t) => ({
      id: t.id,
      isResolved: t.isResolved ?? false,
      isOutdated: t.isOutdated ?? false,
      path: t.path,
      line: t.line,
      // The reader's aliases: the first comment, and the latest twenty.
      first: { nodes: t.comments.slice(0, 1).map(comment) },
      latest: { nodes: t.comments.slice(-20).map(comment) }
    }))
    return {
      status: 200,
      body: {
        data: {
          viewer: { login: BOT },
          repository: {
            pullRequest: pr
              ? {
                  reviewThreads: {
                    pageInfo: {
                      hasNextPage: start + size < all.length,
                      endCursor: start + size < all.length ? String(start + size) : null
                    },
                    nodes
                  }
                }
              : null
          }
        }
      }
    }
  }
  if (query.includes('addPullRequestReviewThreadReply')) {
    const found = thread(vars.thread)
    if (!found)
      return { status: 200, body: { errors: [{ message: `no thread ${String(vars.thread)}` }] } }
    found.comments.push({ body: String(vars.body), author: BOT })
    return {
      status: 200,
      body: {
        data: { addPullRequestReviewThreadReply: { comment: { id: `c${found.comments.length}` } } }
      }
    }
  }
  if (query.includes('resolveReviewThread')) {
    const found = thread(vars.thread)
    if (!found)
      return { status: 200, body: { errors: [{ message: `no thread ${String(vars.thread)}` }] } }
    found.isResolved = true
    return {
      status: 200,
      body: { data: { resolveReviewThread: { thread: { id: found.id, isResolved: true } } } }
    }
  }
  if (/^\s*query\s*\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query))
    return { status: 200, body: { data: { viewer: { login: BOT } } } }
  return { status: 200, body: { errors: [{ message: 'unknown query' }] } }
}
