import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { mapConcurrent } from '../../src/agent/concurrency.js'
import { extractDiff } from '../../src/edits/index.js'
import {
  ModelClient,
  RunBudget,
  endpointUrl,
  parseHeaderLines,
  secretHint,
  type ModelClientOptions
} from '../../src/model/index.js'
import { retryAfterMs, retryWait } from '../../src/model/retry.js'
import { startModelServer, type ModelServer, type ReplyScript } from '../support/model-server.js'
import { failure } from '../support/errors.js'
import { until } from '../support/until.js'
import { answeredTogether } from '../support/answered-together.js'

const KEY = 'sk-canary-0123456789abcdefXY'
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function serve(script: ReplyScript): Promise<ModelServer> {
  const server = await startModelServer(script)
  cleanups.push(() => server.close())
  return server
}

function clientFor(server: ModelServer, options: Partial<ModelClientOptions> = {}): ModelClient {
  return new ModelClient({
    baseUrl: server.url,
    apiKey: KEY,
    model: 'gpt-test',
    // A backstop only (the tests of timeouts set their own): a loaded machine is slow to answer.
    timeoutMs: 60_000,
    maxBackoffMs: 20,
    ...options
  })
}

const ask = [{ role: 'user' as const, content: 'Say hello' }]

/** A chat completion as an endpoint sends it unstreamed: one choice with this message. */
function completionBody(message: Record<string, unknown>, finishReason = 'stop', usage?: object) {
  return {
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-test',
    choices: [
      { index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }
    ],
    ...(usage ? { usage } : {})
  }
}

describe('ModelClient against the scripted server', () => {
  it('streams a reply, takes usage from the endpoint and sends the key only as a bearer token', async () => {
    const server = await serve([
      {
        content: 'hello there',
        usage: { prompt_tokens: 11, completion_tokens: 3, cached_tokens: 8 }
      }
    ])
    const model = clientFor(server, { headers: { 'X-Gateway': 'team-a' } })
    const reply = await model.complete(ask, { label: 'greeting' })
    expect(reply).toMatchObject({
      text: 'hello there',
      promptTokens: 11,
      cachedPromptTokens: 8,
      completionTokens: 3,
      usageEstimated: false,
      retries: 0,
      finishReason: 'stop'
    })
    const request = server.requests[0]!
    expect(request.body.stream).toBe(true)
    expect(request.body.stream_options).toEqual({ include_usage: true })
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(request.headers['x-gateway']).toBe('team-a')
    const elsewhere = Object.entries(request.headers)
      .filter(([name]) => name !== 'authorization')
      .map(([, value]) => String(value))
    expect([...elsewhere, request.path, JSON.stringify(request.body)].join('\n')).not.toContain(KEY)
    expect(model.calls).toEqual([
      expect.objectContaining({
        label: 'greeting',
        prompt_tokens: 11,
        cached_prompt_tokens: 8,
        completion_tokens: 3,
        outcome: 'ok'
      })
    ])
    expect(model.usage).toEqual({
      calls: 1,
      promptTokens: 11,
      cachedPromptTokens: 8,
      completionTokens: 3
    })
  })

  it('reads a whole (non-streamed) reply when streaming is off, with its cached prompt tokens', async () => {
    const server = await serve([
      {
        content: 'whole reply',
        usage: { prompt_tokens: 20, completion_tokens: 2, cached_tokens: 16 }
      },
      'no cache reported'
    ])
    const model = clientFor(server, { stream: false })
    const reply = await model.complete(ask)
    expect(reply).toMatchObject({ text: 'whole reply', promptTokens: 20, cachedPromptTokens: 16 })
    expect(server.requests[0]!.body.stream).toBeFalsy()
    expect((await model.complete(ask)).cachedPromptTokens).toBe(0)
    expect(model.usage.cachedPromptTokens).toBe(16)
  })

  it('waits as retry-after says after a 429, then succeeds (≥ 1 s), counting the retry', async () => {
    const server = await serve([
      { status: 429, content: 'Rate limit reached', headers: { 'retry-after': '1' } },
      'after the wait'
    ])
    const model = clientFor(server)
    const started = Date.now()
    const reply = await model.complete(ask)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
    expect(reply.text).toBe('after the wait')
    expect(reply.retries).toBe(1)
    expect(model.retries.rate_limit).toBe(1)
    expect(server.requests).toHaveLength(2)
  })

  it('retries 5xx, 408 and 409 with a capped backoff', async () => {
    const server = await serve([
      { status: 500, content: 'boom' },
      { status: 503, content: 'busy' },
      { status: 408, content: 'slow' },
      { status: 409, content: 'conflict' },
      'finally'
    ])
    const waits: string[] = []
    const log = { info() {}, debug() {}, warn: (line: string) => waits.push(line) }
    const model = clientFor(server, { log })
    expect((await model.complete(ask)).text).toBe('finally')
    // Each wait is the capped backoff (20 ms), as the client logs it.
    expect(waits.map((line) => /in (\S+ s)/.exec(line)?.[1])).toEqual(Array(4).fill('0.0 s'))
    expect(model.retries).toMatchObject({ server_error: 2, request_timeout: 1, conflict: 1 })
  })

  it('gives up after model-retries with the provider message as MODEL_ERROR', async () => {
    const server = await serve(() => ({ status: 502, content: 'upstream exploded' }))
    const error = await failure(clientFor(server, { maxRetries: 2 }).complete(ask))
    expect(error.code).toBe('MODEL_ERROR')
    expect(error.message).toContain('HTTP 502 after 2 retries')
    expect(error.message).toContain('upstream exploded')
    expect(server.requests).toHaveLength(3)
  })

  it('does not retry a 400, and names the provider message', async () => {
    const server = await serve(() => ({ status: 400, content: "model 'gpt-test' does not exist" }))
    const error = await failure(clientFor(server).complete(ask))
    expect(error.code).toBe('MODEL_ERROR')
    expect(error.message).toContain("model 'gpt-test' does not exist")
    expect(server.requests).toHaveLength(1)
  })

  it('redacts key echoes in provider messages, leaving no more than the last two characters', async () => {
    const echo = `Incorrect API key provided: sk-canar************************cdefXY.`
    const server = await serve(() => ({ status: 401, content: echo }))
    const error = await failure(clientFor(server).complete(ask))
    expect(error.message).toContain('Incorrect API key provided')
    expect(error.message).not.toContain('cdefXY')
    expect(error.message).not.toContain('sk-canar')
  })

  it('gives up at once when retry-after asks for more than it waits', async () => {
    const server = await serve(() => ({
      status: 429,
      content: 'slow down',
      headers: { 'retry-after': '600' }
    }))
    const error = await failure(clientFor(server).complete(ask))
    expect(error.message).toContain('gave up: the endpoint asked to wait 600 s (retry-after)')
    expect(server.requests).toHaveLength(1)
  })

  it('ends a server that never answers in TIMEOUT within model-timeout, without retrying', async () => {
    const server = await serve(() => ({ hang: true }))
    const started = Date.now()
    // 2 s: the request has to reach the server in this worker before the limit ends it.
    const error = await failure(clientFor(server, { timeoutMs: 2_000 }).complete(ask))
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain('within 2 s (model-timeout)')
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_990)
    expect(server.requests).toHaveLength(1)
  })

  it('ends a hanging call at the run time-limit', async () => {
    const server = await serve(() => ({ hang: true }))
    const budget = new RunBudget({ maxAttempts: 4, maxTotalTokens: 0, timeLimitMs: 300 })
    // Ended by the time-limit, not by the minute-long model-timeout.
    const error = await failure(clientFor(server, { timeoutMs: 60_000, budget }).complete(ask))
    expect(error.code).toBe('TIMEOUT')
    expect(error.message).toContain('time-limit of 0 s')
    expect(budget.summary().stopped_by).toBe('time-limit')
  })

  it('says it stopped at the time-limit wherever the TIMEOUT is made (the retry loop too)', () => {
    const budget = new RunBudget({ maxAttempts: 4, maxTotalTokens: 0, timeLimitMs: 60_000 })
    expect(budget.timeLimitError('waiting for the model (a label)').code).toBe('TIMEOUT')
    expect(budget.summary().stopped_by).toBe('time-limit')
  })

  it('does not wait for a retry that would pass the time-limit', async () => {
    const server = await serve(() => ({
      status: 429,
      content: 'later',
      headers: { 'retry-after': '100' }
    }))
    const budget = new RunBudget({ maxAttempts: 4, maxTotalTokens: 0, timeLimitMs: 60_000 })
    const error = await failure(clientFor(server, { budget }).complete(ask))
    expect(server.requests).toHaveLength(1)
    expect(error.code).toBe('MODEL_ERROR')
    expect(error.message).toContain("would pass the run's time-limit")
  })

  it('turns a cut stream into MODEL_ERROR, discarding the partial reply', async () => {
    const server = await serve([
      { content: 'a long partial diff that never ends', cutStreamAfter: 2 }
    ])
    const error = await failure(clientFor(server, { maxRetries: 0 }).complete(ask))
    expect(error.code).toBe('MODEL_ERROR')
  })

  it('turns malformed JSON into MODEL_ERROR, streamed or not', async () => {
    const broken = { body: '{"choices": [ {"message": ', headers: {} }
    for (const stream of [false, true]) {
      const server = await serve([broken])
      const error = await failure(clientFor(server, { stream, maxRetries: 0 }).complete(ask))
      expect(error.code, `stream: ${stream}`).toBe('MODEL_ERROR')
    }
  })

  it('retries a cut stream and a body cut short like a dropped connection', async () => {
    const cut = { content: 'a long partial diff that never ends', cutStreamAfter: 2 }
    const short = { body: '{"choices": [ {"message": ', headers: {} }
    for (const [stream, broken] of [
      [true, cut],
      [false, short],
      [true, short]
    ] as const) {
      const server = await serve([broken, { content: 'whole this time' }])
      const model = clientFor(server, { stream, maxBackoffMs: 10 })
      expect((await model.complete(ask)).text, `stream: ${stream}`).toBe('whole this time')
      expect(model.retries.connection).toBe(1)
      expect(server.requests).toHaveLength(2)
    }
    const always = await serve(() => cut)
    const error = await failure(
      clientFor(always, { maxRetries: 2, maxBackoffMs: 10 }).complete(ask)
    )
    expect(error.code).toBe('MODEL_ERROR')
    expect(error.message).toMatch(/before the model finished.*after 2 retries/)
    expect(always.requests).toHaveLength(3)
  })

  it('retries a dropped connection, and names the connection problem when it keeps failing', async () => {
    const server = await serve([{ drop: true }, { content: 'after the reset' }])
    const model = clientFor(server, { stream: false })
    expect((await model.complete(ask)).text).toBe('after the reset')
    expect(model.retries.connection).toBe(1)
    expect(server.requests).toHaveLength(2)

    const closed = await serve([])
    await closed.close()
    const error = await failure(clientFor(closed, { maxRetries: 1 }).complete(ask))
    expect(error.code).toBe('MODEL_ERROR')
    expect(error.message).toMatch(/ECONNREFUSED/)
  })

  it('follows a 307 redirect, resending the same request', async () => {
    const server = await serve([
      { status: 307, headers: { location: '/openai/v1/chat/completions' } },
      'after the move'
    ])
    const model = clientFor(server, { stream: false, maxRetries: 0 })
    expect((await model.complete(ask)).text).toBe('after the move')
    expect(server.requests.map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/openai/v1/chat/completions'
    ])
    expect(server.requests[1]!.body).toEqual(server.requests[0]!.body)
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it('refuses a reply past the byte cap', async () => {
    const server = await serve(['x'.repeat(50_000)])
    const error = await failure(clientFor(server, { maxReplyBytes: 10_000 }).complete(ask))
    expect(error.code).toBe('MODEL_ERROR')
    expect(error.message).toContain('10000-byte cap')
    expect(error.details.max_reply_bytes).toBe(10_000)
  })

  it('reads a compressed reply, and caps it by its decompressed size', async () => {
    const reply = (content: string) =>
      JSON.stringify(
        completionBody({ content }, 'stop', {
          prompt_tokens: 5,
          completion_tokens: 2,
          total_tokens: 7
        })
      )
    const encodings = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }
    for (const [encoding, compress] of Object.entries(encodings)) {
      const server = await serve([
        { body: compress(reply('hello, compressed')), headers: { 'content-encoding': encoding } }
      ])
      const model = clientFor(server, { stream: false })
      expect((await model.complete(ask)).text, encoding).toBe('hello, compressed')
      expect(server.requests[0]!.headers['accept-encoding']).toContain(encoding)
    }
    // 2 MB of spaces compress to about 2 KB: the cap counts what comes out of the decoder.
    const bomb = gzipSync(reply(' '.repeat(2_000_000)))
    expect(bomb.length).toBeLessThan(10_000)
    const server = await serve([{ body: bomb, headers: { 'content-encoding': 'gzip' } }])
    const client = clientFor(server, { stream: false, maxReplyBytes: 100_000, maxRetries: 0 })
    const error = await failure(client.complete(ask))
    expect(error.code).toBe('MODEL_ERROR')
    expect(error.message).toContain('100000-byte cap')
  })

  it('refuses a reply cut at the output limit (finish_reason: length)', async () => {
    const server = await serve([{ body: completionBody({ content: '--- a/x' }, 'length') }])
    const error = await failure(clientFor(server, { stream: false }).complete(ask))
    expect(error.message).toContain('finish_reason: length')
  })

  it('hands a draft a reply cut at the output limit, marked cut off, when asked to (streamed too)', async () => {
    for (const stream of [false, true]) {
      const server = await serve([
        { content: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n c', finishReason: 'length' }
      ])
      const reply = await clientFor(server, { stream }).complete(ask, { acceptCutOff: true })
      expect(reply).toMatchObject({ cutOff: true, finishReason: 'length' })
      expect(reply.text).toContain('+b')
      // Structured output is never taken half-written.
      const structured = await serve([{ content: '{"path": "a.ts", "ed', finishReason: 'length' }])
      const error = await failure(
        clientFor(structured, { stream }).complete(ask, {
          acceptCutOff: true,
          responseFormat: { name: 'x', schema: z.object({ path: z.string() }) }
        })
      )
      expect(error.message).toContain('finish_reason: length')
    }
  })

  it('counts usage with the tokenizer when the endpoint reports none', async () => {
    const server = await serve([{ body: completionBody({ content: 'hello world' }) }])
    const reply = await clientFor(server, { stream: false }).complete(ask)
    expect(reply.usageEstimated).toBe(true)
    expect(reply.completionTokens).toBe(2)
    expect(reply.promptTokens).toBeGreaterThan(2)
  })

  it('drops stream_options for an endpoint that refuses them', async () => {
    const server = await serve((request) =>
      request.body.stream_options
        ? { status: 400, content: 'Unrecognized request argument supplied: stream_options' }
        : 'plain stream'
    )
    const model = clientFor(server)
    const reply = await model.complete(ask)
    expect(reply.text).toBe('plain stream')
    expect(reply.usageEstimated).toBe(true)
    expect(model.fallbacks).toEqual(['stream_options'])
    expect(model.retries.server_error).toBe(0)
  })

  it('returns the seed contract reply {"diff", "reasoning"} as written; the diff format reads it', async () => {
    const diff = '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n'
    const reply = JSON.stringify({ diff, reasoning: 'because' })
    const server = await serve([reply])
    const { text } = await clientFor(server).complete(ask)
    expect(text).toBe(reply)
    expect(extractDiff(text)).toBe(diff)
  })

  it('stops when the run would pass max-total-tokens, before sending the call', async () => {
    const server = await serve(['never asked'])
    const budget = new RunBudget({ maxAttempts: 4, maxTotalTokens: 50, timeLimitMs: 0 })
    const big = [{ role: 'user' as const, content: 'word '.repeat(200) }]
    const error = await failure(clientFor(server, { budget }).complete(big))
    expect(error.code).toBe('TOKEN_BUDGET_EXCEEDED')
    expect(error.details).toMatchObject({ max_total_tokens: 50, used_tokens: 0 })
    expect(server.requests).toHaveLength(0)
  })
})

describe('structured output', () => {
  const Edits = z.object({
    path: z.string(),
    edits: z.array(z.object({ start: z.number(), end: z.number(), newText: z.string() }))
  })
  const format = { name: 'file_edits', schema: Edits }
  const answer = { path: 'a.ts', edits: [{ start: 1, end: 1, newText: 'x' }] }

  it('asks with response_format json_schema and returns the parsed reply', async () => {
    const server = await serve([JSON.stringify(answer)])
    const reply = await clientFor(server).complete(ask, { responseFormat: format })
    expect(server.requests[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'file_edits', strict: true }
    })
    expect(reply.parsed).toEqual(answer)
  })

  it('falls back to the schema in the prompt when the endpoint refuses response_format', async () => {
    const server = await serve((request) =>
      request.body.response_format
        ? { status: 400, content: "response_format 'json_schema' is not supported by this model" }
        : JSON.stringify(answer)
    )
    const model = clientFor(server)
    const reply = await model.complete(ask, { responseFormat: format })
    expect(reply.parsed).toEqual(answer)
    expect(model.fallbacks).toEqual(['response_format'])
    const second = server.requests[1]!.body
    expect(second.response_format).toBeUndefined()
    expect(second.messages.at(-1).content).toContain('JSON Schema')
    // Later calls skip the refused feature.
    await model.complete(ask, { responseFormat: format })
    expect(server.requests[2]!.body.response_format).toBeUndefined()
  })

  it('reads a forced tool call in tool mode', async () => {
    const toolCall = {
      id: 'call_1',
      type: 'function',
      function: { name: 'file_edits', arguments: JSON.stringify(answer) }
    }
    const server = await serve([
      { body: completionBody({ content: null, tool_calls: [toolCall] }, 'tool_calls') }
    ])
    const model = clientFor(server, { stream: false, structuredOutput: 'tool' })
    const reply = await model.complete(ask, { responseFormat: format })
    expect(server.requests[0]!.body.tool_choice).toEqual({
      type: 'function',
      function: { name: 'file_edits' }
    })
    expect(reply.parsed).toEqual(answer)
  })
})

describe('parallel drafting', () => {
  it('runs at most `concurrency` calls at once and keeps plan order', async () => {
    // Held until four are waiting at once, then each still takes a moment: a fifth in flight
    // would show.
    const server = await serve(
      answeredTogether(4, (request) => ({
        content: `reply to ${request.body.messages[0].content}`,
        delayMs: 50
      }))
    )
    const model = clientFor(server)
    const files = Array.from({ length: 8 }, (_, i) => `file-${i}`)
    const replies = await mapConcurrent(files, 4, (file, _i, signal) =>
      model.complete([{ role: 'user', content: file }], { signal, label: file })
    )
    expect(replies.map((reply) => reply.text)).toEqual(files.map((file) => `reply to ${file}`))
    expect(server.maxConcurrent).toBe(4)
  })

  it('keeps maxInFlight over all callers, e.g. the drafts of two [P] tasks at once', async () => {
    const server = await serve(answeredTogether(3, () => ({ content: 'ok', delayMs: 50 })))
    const model = clientFor(server, { maxInFlight: 3 })
    const ask = (file: string, signal: AbortSignal) =>
      model.complete([{ role: 'user', content: file }], { signal, label: file })
    const task = (name: string) =>
      mapConcurrent(['a', 'b', 'c'], 3, (file, _i, signal) => ask(`${name}/${file}`, signal))
    const [first, second] = await Promise.all([task('T002'), task('T003')])
    expect([...first, ...second].map((reply) => reply.text)).toEqual(Array(6).fill('ok'))
    expect(server.requests).toHaveLength(6)
    expect(server.maxConcurrent).toBe(3)
  })

  it('one failed call cancels the others, which do not keep running', async () => {
    const server = await serve((request) =>
      request.body.messages[0].content === 'file-2'
        ? { status: 400, content: 'bad request for file-2', delayMs: 100 }
        : { hang: true }
    )
    // The hanging calls would end only at this minute-long timeout, as TIMEOUT.
    const model = clientFor(server, { timeoutMs: 60_000 })
    const files = Array.from({ length: 4 }, (_, i) => `file-${i}`)
    const error = await failure(
      mapConcurrent(files, 4, (file, _i, signal) =>
        model.complete([{ role: 'user', content: file }], { signal, label: file })
      )
    )
    expect(error.message).toContain('bad request for file-2')
    // Every request's connection was closed by the client, not left hanging.
    await until(
      () => server.requests.every((request) => request.endedAt !== undefined),
      'every connection to close'
    )
    expect(model.calls.filter((call) => call.outcome === 'MODEL_ERROR')).toHaveLength(4)
  })
})

describe('endpoint settings', () => {
  it('gives an Azure resource URL the v1 path and refuses the dated deployment URLs', () => {
    expect(endpointUrl('https://acme.openai.azure.com')).toBe(
      'https://acme.openai.azure.com/openai/v1'
    )
    expect(endpointUrl('https://acme.openai.azure.com/openai/v1/')).toBe(
      'https://acme.openai.azure.com/openai/v1'
    )
    expect(endpointUrl('https://acme.services.ai.azure.com/openai')).toBe(
      'https://acme.services.ai.azure.com/openai/v1'
    )
    expect(endpointUrl('http://localhost:11434/v1/')).toBe('http://localhost:11434/v1')
    expect(() =>
      endpointUrl(
        'https://acme.openai.azure.com/openai/deployments/gpt4/chat/completions?api-version=2024-10-21'
      )
    ).toThrow(/v1 endpoint/)
  })

  it('parses header lines and refuses the ones that would carry the key', () => {
    expect(
      parseHeaderLines(['HTTP-Referer: https://example.org', 'X-Title:  Patchsmith '])
    ).toEqual({
      'HTTP-Referer': 'https://example.org',
      'X-Title': 'Patchsmith'
    })
    expect(() => parseHeaderLines(['Authorization: Bearer x'])).toThrow(/api-key/)
    expect(() => parseHeaderLines(['just-a-secret-value'])).toThrow(/line 1/)
  })

  it('shows no more of a key than its last two characters', () => {
    expect(secretHint(KEY)).toBe('…XY')
    expect(secretHint('short')).toBe('(set)')
  })

  it('honours retry-after in seconds, as a date, and retry-after-ms', () => {
    const headers = (values: Record<string, string>) => new Headers(values)
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2_000)
    expect(retryAfterMs(headers({ 'retry-after-ms': '150' }))).toBe(150)
    const date = new Date(Date.now() + 3_000).toUTCString()
    expect(retryAfterMs(headers({ 'retry-after': date }))).toBeGreaterThan(1_000)
    expect(retryAfterMs(headers({}))).toBeUndefined()
    const policy = { maxBackoffMs: 4_000, maxRetryAfterMs: 120_000 }
    expect(retryWait(undefined, 1, policy, () => 1).ms).toBe(500)
    expect(retryWait(undefined, 10, policy, () => 1).ms).toBe(4_000)
  })
})

describe('RunBudget', () => {
  it('allows rounds up to 1 + max-repairs, then explains the refusal', () => {
    const budget = new RunBudget({ maxAttempts: 2, maxTotalTokens: 0, timeLimitMs: 0 })
    expect(budget.beforeAttempt(1)).toBeUndefined()
    expect(budget.beforeAttempt(2, 'VALIDATION_FAILED')).toBeUndefined()
    expect(budget.beforeAttempt(3, 'VALIDATION_FAILED')).toContain('max-repairs (1) reached')
    expect(budget.summary()).toMatchObject({
      stopped_by: 'max-repairs',
      rounds_by_reason: { VALIDATION_FAILED: 1 }
    })
  })

  it('refuses a round once the tokens are spent or the time is up', async () => {
    const tokens = new RunBudget({ maxAttempts: 9, maxTotalTokens: 100, timeLimitMs: 0 })
    tokens.record(80, 30)
    expect(() => tokens.beforeAttempt(2)).toThrow(/max-total-tokens \(100\)/)
    const time = new RunBudget({ maxAttempts: 9, maxTotalTokens: 0, timeLimitMs: 20 })
    await new Promise((resolve) => time.signal.addEventListener('abort', resolve))
    expect(() => time.beforeAttempt(2)).toThrow(/time-limit/)
  })

  it('counts the time as up once its deadline has aborted the calls, though the clock reads a millisecond short', async () => {
    const time = new RunBudget({ maxAttempts: 9, maxTotalTokens: 0, timeLimitMs: 20 })
    await new Promise((resolve) => time.signal.addEventListener('abort', resolve))
    // The timer and Date.now() round apart: the signal can fire while the clock says 1 ms is
    // left (the test above failed so, once, under load).
    const clock = vi.spyOn(Date, 'now').mockReturnValue(time.startedAt + 19)
    try {
      expect(time.remainingMs()).toBe(0)
      expect(() => time.beforeAttempt(2)).toThrow(/time-limit/)
    } finally {
      clock.mockRestore()
    }
  })
})
