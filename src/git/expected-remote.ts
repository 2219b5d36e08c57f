import { SecurityViolationError } from '../contract/index.js'

/**
 * Under GitHub Actions, the remote Patchsmith pushes to must be the workflow's own repository
 * on the workflow's server (GITHUB_SERVER_URL, GITHUB_REPOSITORY): an HTTP(S) or SSH URL
 * anywhere else is refused before anything is sent. A local path stays allowed: it reaches no
 * host, and only the workflow itself can have put it in `.git/config` before the run.
 */
export function assertExpectedRemote(
  remote: string,
  url: string,
  env: NodeJS.ProcessEnv = process.env
): void {
  const repository = env.GITHUB_REPOSITORY?.trim()
  if (env.GITHUB_ACTIONS !== 'true' || !repository) return
  const target = networkTarget(url)
  if (!target) return
  let server: URL
  try {
    server = new URL(env.GITHUB_SERVER_URL || 'https://github.com')
  } catch {
    return
  }
  const sameHost =
    target.host === server.hostname.toLowerCase() &&
    (target.port === undefined || target.port === server.port)
  if (sameHost && target.path === repository.toLowerCase()) return
  throw new SecurityViolationError(
    `remote.${remote}.url (${withoutCredentials(url)}) is not this workflow's repository (${server.origin}/${repository}); Patchsmith pushes only there. Point origin at it (actions/checkout does) and rerun [rule unexpected-remote].`,
    { rule: 'unexpected-remote', remote, expected: `${server.origin}/${repository}` }
  )
}

interface Target {
  host: string
  /** The port of an http(s) URL ('' for the scheme's default); undefined for SSH. */
  port?: string
  /** owner/repo, lower case, without `.git` or slashes around it. */
  path: string
}

/** Host and repository of a URL that reaches the network; undefined for a local one. */
function networkTarget(url: string): Target | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
  if (scheme === 'file') return undefined
  if (scheme) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return { host: '', path: '' }
    }
    const web = scheme === 'http' || scheme === 'https'
    return {
      host: parsed.hostname.toLowerCase(),
      port: web ? parsed.port : undefined,
      path: repositoryPath(decodeURIComponent(parsed.pathname))
    }
  }
  // scp-like `[user@]host:path`, as git reads it: a colon before any slash.
  const scp = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(.*)$/s.exec(url)
  if (!scp) return undefined
  return { host: scp[1]!.replace(/^\[|\]$/g, '').toLowerCase(), path: repositoryPath(scp[2]!) }
}

function repositoryPath(path: string): string {
  return path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/i, '')
    .toLowerCase()
}

function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1')
}
