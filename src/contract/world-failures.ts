import type { AgentError } from './schemas.js'

/**
 * Failures of the world a run depends on, named for what they are instead of INTERNAL_ERROR
 * (which stays for Patchsmith's own bugs): GitHub's API answering 5xx, a rate limit, GraphQL
 * errors or nothing at all; a full disk, a read-only checkout, a permission the runner lacks, a
 * git lock another process holds. Recognised by shape (octokit's RequestError and
 * GraphqlResponseError, Node's errno codes, git's messages), so no layer has to import another's
 * error classes to be reported rightly.
 */
export function worldFailure(error: unknown): AgentError | undefined {
  if (!(error instanceof Error)) return undefined
  return githubFailure(error) ?? environmentFailure(error)
}

interface RequestErrorShape {
  status?: unknown
  request?: { method?: string; url?: string }
  response?: { headers?: Record<string, string | undefined> }
  errors?: { type?: string; message?: string }[]
  data?: { errors?: { type?: string; message?: string }[] }
}

function githubFailure(error: Error): AgentError | undefined {
  const shaped = error as Error & RequestErrorShape
  // octokit's throttling plugin throws its own Error for a RATE_LIMITED answer, the errors in `data`.
  const graphqlErrors = error.name === 'GraphqlResponseError' ? shaped.errors : shaped.data?.errors
  if (Array.isArray(graphqlErrors)) {
    const types = graphqlErrors.map((e) => e.type ?? 'ERROR')
    const messages = graphqlErrors.map((e) => e.message ?? '').filter(Boolean)
    const what = `GitHub's GraphQL API answered with errors (${types.join(', ')}): ${messages.slice(0, 3).join('; ')}`
    if (types.includes('RATE_LIMITED'))
      return github(`${what}. Rerun after the rate limit resets (within the hour).`, true, {
        types
      })
    if (types.includes('NOT_FOUND'))
      return invalid(`${what}. Check the pull request or repository named.`, { types })
    return github(`${what}. Rerun; if it persists, check the token's permissions.`, true, {
      types
    })
  }
  if (error.name !== 'HttpError' || typeof shaped.status !== 'number') return undefined
  const status = shaped.status
  const where = `${shaped.request?.method ?? ''} ${redactQuery(shaped.request?.url ?? '')}`.trim()
  const headers = shaped.response?.headers ?? {}
  const details = { status, request: where }
  const limited =
    status === 429 ||
    (status === 403 &&
      (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(error.message)))
  if (limited) {
    const reset = Number(headers['x-ratelimit-reset'])
    const retryAfter = Number(headers['retry-after'])
    const when =
      Number.isFinite(reset) && reset > 0
        ? `after ${new Date(reset * 1000).toISOString()}`
        : Number.isFinite(retryAfter) && retryAfter > 0
          ? `in ${retryAfter} s`
          : 'in a few minutes'
    return github(`GitHub's rate limit stopped ${where} (${status}). Rerun ${when}.`, true, {
      ...details,
      retry: when
    })
  }
  if (status === 401)
    return {
      code: 'PERMISSION_DENIED',
      message: `GitHub refused the token on ${where} (401): give a valid "github-token" (CLI: GITHUB_TOKEN or --github-token-file).`,
      details,
      recoverable: false
    }
  if (status === 403)
    return {
      code: 'PERMISSION_DENIED',
      message: `GitHub refused ${where} (403): ${firstLine(error.message)}. Give the job the permission it names (for example issues: write or pull-requests: write).`,
      details,
      recoverable: false
    }
  if (status === 404 || status === 410)
    return invalid(
      `GitHub has no such resource: ${where} (${status}). Check the number or name given.`,
      details
    )
  // octokit's status 500 for a request that got no answer at all (refused, reset, DNS): the
  // network's fault or a wrong GITHUB_API_URL, not GitHub's.
  if (status === 500 && shaped.response === undefined)
    return github(
      `Could not reach GitHub's API at ${origin(shaped.request?.url ?? '')} for ${where}: ${firstLine(error.message)}. Check GITHUB_API_URL, the network and the proxy settings (HTTPS_PROXY), then rerun.`,
      true,
      details
    )
  if (status >= 500)
    return github(
      `GitHub's API failed on ${where} (${status}: ${firstLine(error.message)}) after retries. This is GitHub's side: rerun later (https://www.githubstatus.com).`,
      true,
      details
    )
  return github(`GitHub refused ${where} (${status}): ${firstLine(error.message)}.`, false, details)
}

const ENVIRONMENT: Record<string, { what: string; fix: string }> = {
  ENOSPC: {
    what: 'the disk is full',
    fix: 'free space on the runner (or a larger one), then rerun'
  },
  EDQUOT: { what: 'the disk quota is used up', fix: 'free space, then rerun' },
  EROFS: {
    what: 'the file system is read-only',
    fix: 'check out the repository where the job can write'
  },
  EACCES: {
    what: 'permission was denied',
    fix: 'make the checkout and the temp folder writable by the job'
  },
  EPERM: { what: 'the operation was not permitted', fix: 'make the checkout writable by the job' },
  EXDEV: {
    what: 'a folder of the work tree is another mount (a bind mount inside the checkout)',
    fix: 'move the mount out of the work tree, or set validation-overlay: false'
  },
  EMFILE: {
    what: 'too many files are open',
    fix: 'rerun; raise the open-file limit on a self-hosted runner'
  }
}

const GIT_MESSAGES: [RegExp, string][] = [
  [/No space left on device|Out of diskspace/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
  [/Read-only file system/i, 'EROFS'],
  [/Permission denied/i, 'EACCES']
]

function environmentFailure(error: Error): AgentError | undefined {
  const text = `${error.message}\n${String((error as { stderr?: unknown }).stderr ?? '')}`
  const lock = /Unable to create '([^']*\.lock)': File exists/.exec(text)
  if (lock)
    return {
      code: 'GIT_CONFLICT',
      message: `Another git process holds ${lock[1]}. Wait for it to end; if none runs (a crashed one left it), delete that file, then rerun. ${firstLine(error.message)}`,
      details: { rule: 'git-lock-held', lock: lock[1] },
      recoverable: true
    }
  const errno = (error as NodeJS.ErrnoException).code
  const code =
    errno && errno in ENVIRONMENT
      ? errno
      : GIT_MESSAGES.find(([pattern]) => pattern.test(text))?.[1]
  if (!code) return undefined
  const { what, fix } = ENVIRONMENT[code]!
  const path = (error as NodeJS.ErrnoException).path
  return {
    code: 'ENVIRONMENT_ERROR',
    message: `The run stopped because ${what}${path ? ` (${path})` : ''}: ${fix}. ${firstLine(error.message)}`,
    details: { errno: code, ...(path ? { path } : {}) },
    recoverable: true
  }
}

function github(message: string, recoverable: boolean, details: object): AgentError {
  return { code: 'GITHUB_API_ERROR', message, details: { ...details }, recoverable }
}

function invalid(message: string, details: object): AgentError {
  return { code: 'INVALID_INPUT', message, details: { ...details }, recoverable: false }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300)
}

function origin(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'GITHUB_API_URL'
  }
}

/** The path is enough to say where (a query string may carry a token). */
function redactQuery(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return url.split('?')[0]!
  }
}
