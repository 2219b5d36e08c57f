/**
 * A real HTTP proxy on 127.0.0.1, as a runner behind a corporate proxy has: it tunnels CONNECT
 * and forwards absolute-form requests. Like such a proxy it resolves names the runner cannot:
 * `hosts` maps a host name (e.g. `model.patchsmith.invalid`) to a loopback port.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { listenOnLoopback } from './http.js'

export interface ProxyServer {
  /** `http://127.0.0.1:PORT`, for HTTP_PROXY / HTTPS_PROXY. */
  url: string
  /** What passed through, as `CONNECT host:port` or `METHOD absolute-url`. */
  requests: string[]
  close(): Promise<void>
}

export async function startProxyServer(hosts: Record<string, number>): Promise<ProxyServer> {
  const requests: string[] = []
  const target = (host: string, port: number) => ({
    host: '127.0.0.1',
    port: hosts[host] ?? port
  })
  const knows = (host: string) => host in hosts || host === '127.0.0.1'

  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    const url = URL.canParse(req.url ?? '') ? new URL(req.url!) : undefined
    if (!url || !knows(url.hostname)) {
      res.writeHead(502).end(`proxy: cannot reach ${req.url}`)
      return
    }
    const to = target(url.hostname, Number(url.port || 80))
    const upstream = httpRequest(
      { ...to, method: req.method, path: url.pathname + url.search, headers: forwarded(req) },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers)
        reply.pipe(res)
      }
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    requests.push(`CONNECT ${req.url}`)
    client.on('error', () => {})
    const [host, port] = splitAuthority(req.url ?? '')
    if (!knows(host)) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')
      return
    }
    const to = target(host, port)
    const upstream = connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
  })

  const listening = await listenOnLoopback(server)
  return { url: `http://127.0.0.1:${listening.port}`, requests, close: listening.close }
}

function forwarded(req: IncomingMessage): Record<string, string | string[] | undefined> {
  const headers = { ...req.headers }
  delete headers['proxy-connection']
  delete headers['proxy-authorization']
  return headers
}

function splitAuthority(authority: string): [string, number] {
  const at = authority.lastIndexOf(':')
  return at < 0 ? [authority, 443] : [authority.slice(0, at), Number(authority.slice(at + 1))]
}
