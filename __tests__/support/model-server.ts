/**
 * A real loopback HTTP server speaking the OpenAI chat completions API, answering from a script.
 *
 * Tests (and the demo) point the real `openai` SDK at `server.url`, so retries, timeouts,
 * streaming and error parsing are exercised exactly as they are against a hosted model.
 */
import { createServer, type ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { listenOnLoopback, readBody } from './http.js'
import { PromptCache, type PromptCacheRule } from './prompt-cache.js'

export interface ScriptedReply {
  /** Assistant message content (default ''). For a non-2xx status, the error message. */
  content?: string
  /** The choice's finish_reason (default 'stop'); 'length' for a reply cut at the output limit. */
  finishReason?: string
  /** HTTP status (default 200). Non-2xx sends an OpenAI-style error body unless `body` is given. */
  status?: number
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>
  /**
   * Raw body sent instead of a completion: a string or Buffer as-is (malformed JSON, a
   * compressed body with its `content-encoding` header), anything else as JSON.
   */
  body?: unknown
  /** Wait this long before answering. */
  delayMs?: number
  /** Never answer: the connection stays open until the client gives up or the server closes. */
  hang?: boolean
  /** Close the connection without any response, as a crashed proxy or a reset would. */
  drop?: boolean
  /**
   * Token usage to report (default: rough counts, characters / 4); `cached_tokens` is sent as
   * `prompt_tokens_details.cached_tokens`, as providers with prompt caching report it.
   */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number }
  /** Streaming requests only: destroy the socket after this many SSE chunks. */
  cutStreamAfter?: number
}

export interface RecordedRequest {
  index: number
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body (the raw text when it is not JSON, undefined when empty). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  startedAt: number
  /** Set when the response finished or the connection closed. */
  endedAt?: number
}

/** A string stands for `{ content: string }`. */
export type ReplyScript =
  | Array<ScriptedReply | string>
  | ((request: RecordedRequest) => ScriptedReply | string | Promise<ScriptedReply | string>)

export interface ModelServer {
  /** Base URL for the SDK, e.g. 'http://127.0.0.1:PORT/v1'. */
  url: string
  /** Every request received, in arrival order. */
  requests: RecordedRequest[]
  /** The highest number of requests in flight at once. */
  maxConcurrent: number
  close(): Promise<void>
}

export interface ReplyRule {
  contains: string
  reply: ScriptedReply | string
}

const CHAT_PATHS = new Set([
  '/v1/chat/completions',
  '/chat/completions',
  '/openai/v1/chat/completions'
])

export interface ModelServerOptions {
  /**
   * Play a provider's prompt cache: replies without a scripted `usage` report as cached the
   * prompt prefix shared with an earlier request (see prompt-cache.ts).
   */
  promptCache?: PromptCacheRule
}

export async function startModelServer(
  script: ReplyScript,
  options: ModelServerOptions = {}
): Promise<ModelServer> {
  const cache = options.promptCache ? new PromptCache(options.promptCache) : undefined
  // Aborted by close() so pending `delayMs` waits stop instead of keeping timers alive.
  const closing = new AbortController()
  let inFlight = 0
  let scriptCursor = 0

  const state: ModelServer = {
    url: '',
    requests: [],
    maxConcurrent: 0,
    close
  }

  const server = createServer((req, res) => {
    const startedAt = Date.now()
    inFlight += 1
    state.maxConcurrent = Math.max(state.maxConcurrent, inFlight)
    let record: RecordedRequest | undefined
    res.on('close', () => {
      inFlight -= 1
      if (record) record.endedAt = Date.now()
    })
    // A client that disconnects mid-reply must not crash the test process.
    res.on('error', () => {})

    void readBody(req)
      .then(async (body) => {
        record = {
          index: state.requests.length,
          method: req.method ?? 'GET',
          path: (req.url ?? '/').split('?')[0],
          headers: req.headers,
          body,
          startedAt
        }
        state.requests.push(record)
        if (req.method !== 'POST' || !CHAT_PATHS.has(record.path)) {
          sendError(res, 404, `No route for ${req.method} ${record.path}`)
          return
        }
        const cached = cache?.lookup(promptText(record))
        // A copy: a scripted reply object may answer several requests.
        const reply = { ...(await nextReply(record)) }
        if (cached !== undefined && !reply.usage) {
          const counts = roughUsage(record, reply)
          reply.usage = { ...counts, cached_tokens: Math.min(cached, counts.prompt_tokens) }
        }
        await answer(record, reply, res)
      })
      .catch((error: unknown) => {
        if (!res.headersSent) sendError(res, 500, `model server error: ${messageOf(error)}`)
        else res.destroy()
      })
  })

  async function nextReply(request: RecordedRequest): Promise<ScriptedReply> {
    if (typeof script === 'function') {
      try {
        return normalize(await script(request))
      } catch (error) {
        return { status: 500, content: messageOf(error) }
      }
    }
    if (scriptCursor >= script.length) {
      return { status: 500, content: `script exhausted after ${script.length} replies` }
    }
    return normalize(script[scriptCursor++])
  }

  async function answer(
    request: RecordedRequest,
    reply: ScriptedReply,
    res: ServerResponse
  ): Promise<void> {
    if (reply.hang) return
    if (reply.drop) {
      res.socket?.destroy()
      return
    }
    if (reply.delayMs) {
      try {
        await sleep(reply.delayMs, undefined, { signal: closing.signal })
      } catch {
        return // the server is closing
      }
    }
    if (res.destroyed) return

    const status = reply.status ?? 200
    const headers = reply.headers ?? {}
    if (reply.body !== undefined) {
      const raw = reply.body
      sendJson(
        res,
        status,
        typeof raw === 'string' || Buffer.isBuffer(raw) ? raw : JSON.stringify(raw),
        headers
      )
    } else if (status < 200 || status > 299) {
      sendError(res, status, reply.content || `scripted HTTP ${status}`, headers)
    } else if (request.body?.stream === true) {
      await stream(request, reply, res)
    } else {
      sendJson(res, status, JSON.stringify(completion(request, reply)), headers)
    }
  }

  async function close(): Promise<void> {
    closing.abort()
    await listening.close()
  }

  const listening = await listenOnLoopback(server)
  state.url = `http://127.0.0.1:${listening.port}/v1`
  return state
}

/** Answers with the reply of the first rule whose `contains` occurs in the last user message. */
export function replyByMatch(
  rules: ReplyRule[],
  fallback?: ScriptedReply | string
): (request: RecordedRequest) => ScriptedReply | string {
  return (request) => {
    const text = lastUserMessage(request)
    const rule = rules.find((candidate) => text.includes(candidate.contains))
    if (rule) return rule.reply
    if (fallback !== undefined) return fallback
    const snippet = text.length > 200 ? `${text.slice(0, 200)}...` : text
    throw new Error(
      `replyByMatch: no rule matches the last user message: ${JSON.stringify(snippet)}`
    )
  }
}

/** The text of the last `user` message ('' when there is none); text parts are joined by newlines. */
export function lastUserMessage(request: RecordedRequest): string {
  const messages: unknown = request.body?.messages
  if (!Array.isArray(messages)) return ''
  const last = messages.filter((message) => message?.role === 'user').at(-1)
  return last ? textOf(last.content) : ''
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n')
}

function normalize(reply: ScriptedReply | string): ScriptedReply {
  return typeof reply === 'string' ? { content: reply } : reply
}

/** Every message's text, in order: what a provider's prompt cache keys on. */
function promptText(request: RecordedRequest): string {
  const messages: unknown = request.body?.messages
  if (!Array.isArray(messages)) return ''
  return messages.map((message) => `${message?.role}\n${textOf(message?.content)}\n`).join('')
}

/** Rough counts, characters / 4, for a reply without a scripted `usage`. */
function roughUsage(request: RecordedRequest, reply: ScriptedReply) {
  const promptChars = Array.isArray(request.body?.messages)
    ? request.body.messages.reduce(
        (sum: number, message: { content?: unknown }) => sum + textOf(message?.content).length,
        0
      )
    : 0
  return {
    prompt_tokens: Math.ceil(promptChars / 4),
    completion_tokens: Math.ceil((reply.content ?? '').length / 4)
  }
}

function usageOf(request: RecordedRequest, reply: ScriptedReply) {
  const usage = reply.usage ?? roughUsage(request, reply)
  const { cached_tokens: cached, ...counts } = usage as typeof usage & { cached_tokens?: number }
  return {
    ...counts,
    total_tokens: counts.prompt_tokens + counts.completion_tokens,
    ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } })
  }
}

function completion(request: RecordedRequest, reply: ScriptedReply) {
  return {
    id: `chatcmpl-test-${request.index}`,
    object: 'chat.completion',
    created: Math.floor(request.startedAt / 1000),
    model: modelOf(request),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content ?? '', refusal: null },
        logprobs: null,
        finish_reason: reply.finishReason ?? 'stop'
      }
    ],
    usage: usageOf(request, reply)
  }
}

async function stream(
  request: RecordedRequest,
  reply: ScriptedReply,
  res: ServerResponse
): Promise<void> {
  const base = {
    id: `chatcmpl-test-${request.index}`,
    object: 'chat.completion.chunk',
    created: Math.floor(request.startedAt / 1000),
    model: modelOf(request)
  }
  const choice = (delta: object, finishReason: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }]
  })
  const chunks: object[] = [choice({ role: 'assistant', content: '' }, null)]
  for (const piece of splitContent(reply.content ?? '')) {
    chunks.push(choice({ content: piece }, null))
  }
  chunks.push(choice({}, reply.finishReason ?? 'stop'))
  if (request.body?.stream_options?.include_usage) {
    chunks.push({ ...base, choices: [], usage: usageOf(request, reply) })
  }

  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...reply.headers
  })
  for (const [sent, chunk] of chunks.entries()) {
    if (reply.cutStreamAfter !== undefined && sent >= reply.cutStreamAfter) {
      res.socket?.destroy()
      return
    }
    // Waiting for each write to flush makes the chunks reach the client before any cut.
    await write(res, `data: ${JSON.stringify(chunk)}\n\n`)
  }
  res.end('data: [DONE]\n\n')
}

/** Splits content into up to three pieces so a client must assemble the deltas. */
function splitContent(content: string): string[] {
  if (content === '') return []
  const size = Math.max(1, Math.ceil(content.length / 3))
  const pieces: string[] = []
  for (let start = 0; start < content.length; start += size) {
    pieces.push(content.slice(start, start + size))
  }
  return pieces
}

function write(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    res.write(data, () => resolve())
  })
}

function modelOf(request: RecordedRequest): string {
  return typeof request.body?.model === 'string' ? request.body.model : 'test-model'
}

function sendJson(
  res: ServerResponse,
  status: number,
  text: string | Buffer,
  headers: Record<string, string> = {}
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(text)
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {}
): void {
  const type =
    status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error'
  const code = status === 429 ? 'rate_limit_exceeded' : status === 404 ? 'not_found' : null
  sendJson(res, status, JSON.stringify({ error: { message, type, code, param: null } }), headers)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
