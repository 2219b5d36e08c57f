import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ChatMessage } from '../model/index.js'
import type { ReplayJudge } from './judge.js'
import type { ReplayExchange } from './replay-format.js'

const MAX_REQUEST_BYTES = 64 * 1024 * 1024

interface ReplyServer {
  /** The base URL the run's model client is given: http://127.0.0.1:PORT/v1. */
  url: string
  close(): Promise<void>
}

/**
 * The recorded replies as an OpenAI-compatible endpoint on loopback, so a replay goes through the
 * same model client, SDK and reply checks as the recorded run. Each request is handed to the
 * judge: a recorded one gets its recorded reply (streamed when asked), any other a 400 naming
 * the divergence, which ends the run as a model error would.
 */
export async function startReplyServer(judge: ReplayJudge): Promise<ReplyServer> {
  const server = createServer((request, response) => {
    response.on('error', () => {})
    void handle(request, response, judge).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, (error as Error).message)
      else response.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  judge: ReplayJudge
): Promise<void> {
  const body = await readJson(request)
  if (
    request.method !== 'POST' ||
    !(request.url ?? '').split('?')[0]!.endsWith('/chat/completions')
  )
    return sendError(response, 404, `Patchsmith replay serves chat completions only`)
  const exchange = judge.answer(messagesOf(body))
  if (!exchange)
    // Short and fixed: the run's error must not read as a refused feature (structured.ts).
    return sendError(
      response,
      400,
      `Patchsmith replay: request ${judge.modelCalls} left the recording (the replay names how)`
    )
  const model = typeof body?.model === 'string' ? body.model : 'replay'
  if (body?.stream === true) return stream(response, exchange, model, body)
  sendJson(response, 200, {
    id: `chatcmpl-replay-${judge.modelCalls}`,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: exchange.reply, refusal: null },
        logprobs: null,
        finish_reason: exchange.finish_reason
      }
    ],
    usage: usageOf(exchange)
  })
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function stream(response: ServerResponse, exchange: ReplayExchange, model: string, body: any) {
  const base = { id: 'chatcmpl-replay', object: 'chat.completion.chunk', created: 0, model }
  const chunk = (delta: object, finish: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }]
  })
  const chunks: object[] = [
    chunk({ role: 'assistant', content: exchange.reply }, null),
    chunk({}, exchange.finish_reason)
  ]
  if (body?.stream_options?.include_usage)
    chunks.push({ ...base, choices: [], usage: usageOf(exchange) })
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  response.end(
    `${chunks.map((item) => `data: ${JSON.stringify(item)}\n\n`).join('')}data: [DONE]\n\n`
  )
}

function usageOf(exchange: ReplayExchange) {
  const { prompt_tokens, completion_tokens, cached_prompt_tokens } = exchange.usage
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    prompt_tokens_details: { cached_tokens: cached_prompt_tokens }
  }
}

/** The request's messages, each content as text (text parts joined). */
function messagesOf(body: { messages?: unknown } | undefined): ChatMessage[] {
  if (!Array.isArray(body?.messages)) return []
  return (body.messages as Array<{ role?: unknown; content?: unknown } | null>).map((message) => ({
    role: message?.role as ChatMessage['role'],
    content: textOf(message?.content)
  }))
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: { text?: unknown } | null) => (typeof part?.text === 'string' ? part.text : ''))
    .join('\n')
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function readJson(request: IncomingMessage): Promise<any> {
  const parts: Buffer[] = []
  let size = 0
  for await (const part of request) {
    size += (part as Buffer).length
    if (size > MAX_REQUEST_BYTES) throw new Error('request too large')
    parts.push(part as Buffer)
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'))
  } catch {
    return undefined
  }
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(value))
}

function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, {
    error: { message, type: 'invalid_request_error', code: 'replay_divergence', param: null }
  })
}
