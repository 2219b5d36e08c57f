import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { Readable, type Transform } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

/** Raised inside the reply body when it grows past the cap; the connection is dropped. */
export class ReplyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The model's reply passed the ${maxBytes}-byte cap and was cut off.`)
    this.name = 'ReplyTooLargeError'
  }
}

// Statuses whose responses have no body, which `new Response` refuses to give one.
const NO_BODY = new Set([101, 204, 205, 304])
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress
}

/**
 * The `fetch` the openai SDK is given: node:http(s) underneath, and a response body, streamed
 * or not, that errors once its decoded bytes pass `maxBytes`, so a runaway or hostile endpoint
 * cannot fill the runner's memory (a compressed reply is capped after decompression).
 *
 * Node's own fetch would do, but on its first request it compiles a WebAssembly HTTP parser
 * and holds the process at exit while the compiler finishes: about 70 ms of every run. The SDK
 * sends a URL, a method, headers, a JSON string body and an abort signal; uploads, which this
 * action never makes, are refused.
 */
export function cappedFetch(maxBytes: number): typeof fetch {
  return async (input, init = {}) => {
    const body = init.body ?? undefined
    if (body !== undefined && typeof body !== 'string') {
      throw new TypeError('Only JSON text is sent to the model endpoint, not uploads or streams.')
    }
    const url = new URL(String(input))
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value
    })
    headers['accept-encoding'] ??= 'gzip, deflate, br'
    const signal = init.signal ?? undefined
    return toResponse(
      await send(url, init.method ?? 'GET', headers, body, signal),
      maxBytes,
      signal
    )
  }
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined
): Promise<IncomingMessage> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return Promise.reject(new TypeError(`Unsupported protocol ${url.protocol} in ${url.origin}`))
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, signal }, resolve)
    req.on('error', reject)
    req.end(body)
  })
}

function toResponse(reply: IncomingMessage, maxBytes: number, signal?: AbortSignal): Response {
  const headers = new Headers()
  for (const [name, value] of Object.entries(reply.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  const status = reply.statusCode ?? 0
  const init = { status, statusText: reply.statusMessage ?? '', headers }
  if (NO_BODY.has(status)) {
    reply.resume()
    return new Response(null, init)
  }
  // An abort after the headers (the caller's timer) must also end a body that is still coming.
  signal?.addEventListener('abort', () => reply.destroy(signal.reason as Error), { once: true })
  const encoding = (reply.headers['content-encoding'] ?? '').trim().toLowerCase()
  const decoder = DECODERS[encoding]
  let stream: Readable = reply
  if (decoder) {
    stream = reply.pipe(decoder())
    reply.on('error', (error) => stream.destroy(error))
    headers.delete('content-encoding')
    headers.delete('content-length')
  }
  let seen = 0
  stream.on('data', (chunk: Buffer) => {
    seen += chunk.byteLength
    if (seen > maxBytes) {
      stream.destroy(new ReplyTooLargeError(maxBytes))
      reply.destroy()
    }
  })
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, init)
}

/** The ReplyTooLargeError somewhere in an error's cause chain, if any. */
export function replyTooLarge(error: unknown): ReplyTooLargeError | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ReplyTooLargeError) return e
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}
