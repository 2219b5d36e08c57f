import OpenAI from 'openai'

export type RetryReason =
  'rate_limit' | 'server_error' | 'request_timeout' | 'conflict' | 'connection'

export const RETRY_REASONS: readonly RetryReason[] = [
  'rate_limit',
  'server_error',
  'request_timeout',
  'conflict',
  'connection'
]

interface RetryPolicy {
  /** Cap of the exponential backoff used when the endpoint names no wait. */
  maxBackoffMs: number
  /** The longest `retry-after` honoured; an endpoint asking for more is given up on at once. */
  maxRetryAfterMs: number
}

/**
 * A reply that arrived incomplete: a stream that ended without a finish reason, or a whole body
 * cut short. It is the same failure as a dropped connection seen a little later, so it is retried
 * as one.
 */
export class IncompleteReply extends Error {
  constructor(
    message: string,
    readonly receivedChars: number
  ) {
    super(message)
    this.name = 'IncompleteReply'
  }
}

const SOCKET_BROKE = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])

/**
 * Whether the error is the transport breaking off inside a reply: the socket closing mid-body (a
 * cut stream: undici's "terminated", or "aborted" with ECONNRESET, by the error or its causes),
 * or the SDK's JSON parse of a body cut short.
 */
function brokenOff(error: unknown): boolean {
  if (error instanceof IncompleteReply) return true
  if (error instanceof SyntaxError) return /JSON/.test(error.message)
  for (let e = error, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && SOCKET_BROKE.has(code)) return true
    if (e instanceof TypeError && e.message === 'terminated') return true
    e = e.cause
  }
  return false
}

/**
 * Why a failed call may be tried again (408, 409, 429, 5xx, a dropped connection, a reply cut
 * off on the way), or undefined.
 */
export function retryReason(error: unknown): RetryReason | undefined {
  if (error instanceof OpenAI.APIUserAbortError) return undefined
  if (error instanceof OpenAI.APIConnectionTimeoutError) return undefined
  if (error instanceof OpenAI.APIConnectionError) return 'connection'
  if (brokenOff(error)) return 'connection'
  if (!(error instanceof OpenAI.APIError) || typeof error.status !== 'number') return undefined
  if (error.headers?.get('x-should-retry') === 'false') return undefined
  if (error.status === 429) return 'rate_limit'
  if (error.status === 408) return 'request_timeout'
  if (error.status === 409) return 'conflict'
  if (error.status >= 500) return 'server_error'
  return undefined
}

/**
 * How long to wait before retry number `retry` (1-based): the endpoint's `retry-after-ms` or
 * `retry-after` (seconds or an HTTP date) when it sends one, else an exponential backoff from
 * 500 ms, jittered downwards and capped. `asked` tells the caller the wait was the endpoint's.
 */
export function retryWait(
  error: unknown,
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random
): { ms: number; asked: boolean } {
  const headers = error instanceof OpenAI.APIError ? error.headers : undefined
  const asked = retryAfterMs(headers)
  if (asked !== undefined) return { ms: asked, asked: true }
  const backoff = Math.min(policy.maxBackoffMs, 500 * 2 ** (retry - 1))
  return { ms: Math.round(backoff * (0.75 + 0.25 * random())), asked: false }
}

export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms)
  const value = headers?.get('retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number.parseFloat(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}
