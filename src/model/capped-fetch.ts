import type { Dispatcher } from 'undici'

/** Raised inside the reply body when it grows past the cap; the connection is dropped. */
class ReplyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The model's reply passed the ${maxBytes}-byte cap and was cut off.`)
    this.name = 'ReplyTooLargeError'
  }
}

// undici is a fifth of the bundle's main file: loaded on the first model call, so a start that
// makes none (help, a refused input) does not compile it.
let undici: Promise<typeof import('undici')> | undefined
const loadUndici = () => (undici ??= import('undici'))
let sharedDispatcher: Promise<Dispatcher> | undefined

/**
 * One proxy-aware dispatcher per process: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case) as
 * set when it is first used. TLS uses Node's default trust store, which includes the
 * certificates named by NODE_EXTRA_CA_CERTS.
 */
function modelDispatcher(): Promise<Dispatcher> {
  sharedDispatcher ??= loadUndici().then(({ EnvHttpProxyAgent }) => new EnvHttpProxyAgent())
  return sharedDispatcher
}

/**
 * The `fetch` the openai SDK is given: undici's fetch (the implementation behind Node's own)
 * over the proxy-aware dispatcher, following redirects, with a response body, streamed or not,
 * that errors once its decoded bytes pass `maxBytes`, so a runaway or hostile endpoint cannot
 * fill the runner's memory (a compressed reply is capped after decompression).
 * undici's own fetch rather than the global one, so that the dispatcher and the fetch that
 * drives it are always the same undici version, whatever Node bundles.
 */
export function cappedFetch(maxBytes: number, dispatcher?: Dispatcher): typeof fetch {
  return async (input, init = {}) => {
    const { fetch: undiciFetch } = await loadUndici()
    const requestHeaders = new Headers(init.headers)
    // undici decodes brotli too but asks only for gzip and deflate unless told.
    if (!requestHeaders.has('accept-encoding'))
      requestHeaders.set('accept-encoding', 'gzip, deflate, br')
    const response = await undiciFetch(String(input instanceof Request ? input.url : input), {
      ...(init as Parameters<typeof undiciFetch>[1]),
      headers: [...requestHeaders],
      redirect: 'follow',
      dispatcher: dispatcher ?? (await modelDispatcher())
    })
    const headers = new Headers()
    response.headers.forEach((value, name) => headers.append(name, value))
    const reply = { status: response.status, statusText: response.statusText, headers }
    if (!response.body) return new Response(null, reply)
    return new Response(
      (response.body as ReadableStream<Uint8Array>).pipeThrough(byteCap(maxBytes)),
      reply
    )
  }
}

/** A pass-through stream that errors (which cancels the source) past `maxBytes`. */
function byteCap(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength
      if (seen > maxBytes) controller.error(new ReplyTooLargeError(maxBytes))
      else controller.enqueue(chunk)
    }
  })
}

/** The ReplyTooLargeError somewhere in an error's cause chain, if any. */
export function replyTooLarge(error: unknown): ReplyTooLargeError | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ReplyTooLargeError) return e
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}
