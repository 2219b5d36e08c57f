/** Small pieces shared by the loopback test servers. */
import type { IncomingMessage, Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface Listening {
  port: number
  /** Closes the server, destroying open connections first so hanging requests cannot block it. */
  close(): Promise<void>
}

/** Listens on 127.0.0.1 on a free port. */
export async function listenOnLoopback(server: Server): Promise<Listening> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  let closed: Promise<void> | undefined
  return {
    port,
    close() {
      // Waiting for the sockets' own 'close' events means every request has seen its end
      // (and been recorded as ended) by the time this resolves.
      closed ??= Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        ...[...sockets].map((socket) => {
          const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()))
          socket.destroy()
          return gone
        })
      ]).then(() => undefined)
      return closed
    }
  }
}

/** Reads the request body: parsed JSON, the raw text when it is not JSON, undefined when empty. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
