/** Raised inside the reply body when it grows past the cap; the connection is dropped. */
export class ReplyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The model's reply passed the ${maxBytes}-byte cap and was cut off.`)
    this.name = 'ReplyTooLargeError'
  }
}

// Statuses whose responses have no body, which `new Response` refuses to give one.
const NO_BODY = new Set([101, 204, 205, 304])

/**
 * `fetch` whose response bodies, streamed or not, error once they pass `maxBytes`, so a runaway
 * or hostile endpoint cannot fill the memory of the runner.
 */
export function cappedFetch(maxBytes: number, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init)
    if (!response.body || NO_BODY.has(response.status)) return response
    let seen = 0
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength
          if (seen > maxBytes) controller.error(new ReplyTooLargeError(maxBytes))
          else controller.enqueue(chunk)
        }
      })
    )
    return new Response(capped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    })
  }
}

/** The ReplyTooLargeError somewhere in an error's cause chain, if any. */
export function replyTooLarge(error: unknown): ReplyTooLargeError | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ReplyTooLargeError) return e
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}
