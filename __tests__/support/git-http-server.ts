import { spawn } from 'node:child_process'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { dirname, basename } from 'node:path'
import { listenOnLoopback } from './http.js'

/**
 * A git smart-HTTP remote on 127.0.0.1, served by git's own `git http-backend` (CGI), with
 * GitHub's rule for tokens: anyone may fetch, and pushing (receive-pack) needs a token with
 * write access, sent as `Authorization: basic base64(x-access-token:<token>)`. A token that
 * may only read gets 403, as GitHub answers a GITHUB_TOKEN without contents: write.
 */
export interface GitHttpServer {
  /** The origin to set as GITHUB_SERVER_URL (the push token is scoped to it). */
  origin: string
  /**
   * The clone URL of the served bare repository, shaped as GitHub's for the action runner's
   * GITHUB_REPOSITORY (acme/widgets): under Actions Patchsmith pushes only there.
   */
  url: string
  /** Every request: method, path and whether it carried a token, and which. */
  requests: Array<{ method: string; path: string; token?: string }>
  close(): Promise<void>
}

const REPOSITORY = 'acme/widgets.git'

export async function startGitHttpServer(
  bareRepo: string,
  access: {
    writeTokens: string[]
    /** Called as an allowed push's pack arrives, before git receives it (what the pusher holds then). */
    onPush?: () => void
  }
): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = []
  const name = basename(bareRepo)
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname.startsWith(`/${REPOSITORY}/`))
      url.pathname = `/${name}/${url.pathname.slice(REPOSITORY.length + 2)}`
    const token = tokenOf(req)
    requests.push({ method: req.method ?? 'GET', path: url.pathname, token })
    const pushing =
      url.searchParams.get('service') === 'git-receive-pack' ||
      url.pathname.endsWith('/git-receive-pack')
    if (pushing && !(token && access.writeTokens.includes(token))) {
      res.writeHead(token ? 403 : 401, {
        'content-type': 'text/plain',
        ...(token ? {} : { 'www-authenticate': 'Basic realm="GitHub"' })
      })
      res.end(`Permission to acme/${name} denied to github-actions[bot].\n`)
      return
    }
    if (pushing && req.method === 'POST') access.onPush?.()
    backend(req, res, url, dirname(bareRepo))
  })
  const listening = await listenOnLoopback(server)
  const origin = `http://127.0.0.1:${listening.port}`
  return {
    origin,
    url: `${origin}/${REPOSITORY}`,
    requests,
    close: () => listening.close()
  }
}

function tokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization ?? ''
  const basic = /^basic\s+(\S+)$/i.exec(header)
  if (!basic) return undefined
  const [user, password] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')
  return user === 'x-access-token' ? password : undefined
}

/** One CGI request to `git http-backend`: headers, then the body, from its output. */
function backend(req: IncomingMessage, res: ServerResponse, url: URL, root: string): void {
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      // Pushing over HTTP is off by default unless a user is authenticated.
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-encoding']
        ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
        : {}),
      REMOTE_ADDR: '127.0.0.1'
    }
  })
  req.pipe(child.stdin)
  let head = Buffer.alloc(0)
  let headersDone = false
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk)
      return
    }
    head = Buffer.concat([head, chunk])
    const end = head.indexOf('\r\n\r\n')
    if (end < 0) return
    headersDone = true
    let status = 200
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const [key, ...rest] = line.split(':')
      const value = rest.join(':').trim()
      if (key!.toLowerCase() === 'status') status = Number.parseInt(value, 10)
      else res.setHeader(key!, value)
    }
    res.writeHead(status)
    res.write(head.subarray(end + 4))
  })
  child.on('close', () => res.end())
  child.stderr.resume()
}
