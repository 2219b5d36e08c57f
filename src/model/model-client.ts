import OpenAI from 'openai'
import { setTimeout as sleep } from 'node:timers/promises'
import { ModelError, PatchsmithError, TimeoutError } from '../contract/index.js'
import type { RunBudget } from './budget.js'
import { CallSlots } from './call-slots.js'
import type { ChatMessage } from './chat.js'
import { cappedFetch, replyTooLarge } from './capped-fetch.js'
import { endpointUrl } from './endpoint.js'
import { readReply, type Reply } from './reply.js'
import {
  IncompleteReply,
  RETRY_REASONS,
  retryReason,
  retryWait,
  type RetryReason
} from './retry.js'
import {
  requestFormat,
  unsupportedFeature,
  type StructuredFormat,
  type StructuredMode
} from './structured.js'
import { countMessageTokens, countTextTokens, measurePrompt } from './tokens.js'

export interface CompleteOptions {
  /** Aborts the call (e.g. when a sibling draft failed). */
  signal?: AbortSignal
  /** Ask for JSON matching this schema (structured output, a tool call, or a prompt fallback). */
  responseFormat?: StructuredFormat
  /** What the call is for, in logs and metrics: the planned path, or e.g. 'commit message'. */
  label?: string
  /** The draft round; defaults to the budget's current one. */
  attempt?: number
  /**
   * Return a reply cut at the output limit (finish_reason: length) marked `cutOff`, instead of
   * refusing it: a draft's applier keeps what of a cut diff is whole and refuses the rest.
   */
  acceptCutOff?: boolean
}

export interface Completion {
  text: string
  /** With a responseFormat: the reply parsed and checked against its schema, when it matched. */
  parsed?: unknown
  promptTokens: number
  /** Of promptTokens, those the provider read from its prompt cache (0 when not reported). */
  cachedPromptTokens: number
  completionTokens: number
  /** True when the endpoint reported no usage and the tokens were counted here. */
  usageEstimated: boolean
  durationMs: number
  retries: number
  finishReason: string
  /** The reply stopped at the output limit (only with `acceptCutOff`). */
  cutOff?: boolean
}

export interface ModelLog {
  info(message: string): void
  warn(message: string): void
  debug(message: string): void
}

export interface ModelClientOptions {
  baseUrl: string
  apiKey: string
  model: string
  /** One try of a call, from request to the last byte of the reply. */
  timeoutMs: number
  /** Retries of one call on 408, 409, 429, 5xx and dropped or cut connections (default 4). */
  maxRetries?: number
  /** Cap of the exponential backoff (default 30 s). */
  maxBackoffMs?: number
  /** The longest retry-after honoured (default 120 s); a longer one ends the call. */
  maxRetryAfterMs?: number
  /** Extra request headers (gateways, OpenRouter attribution, …). */
  headers?: Record<string, string>
  /** Stream replies (default true). */
  stream?: boolean
  /** Cap on one reply's body (default 2 MiB). */
  maxReplyBytes?: number
  structuredOutput?: StructuredMode
  /** The run's budget: its deadline bounds every call and its token count grows with each. */
  budget?: RunBudget
  /** Calls in flight at once, over all callers (the `concurrency` setting; default no limit). */
  maxInFlight?: number
  log?: ModelLog
  /**
   * Applied to every message before it is sent: the run's masker, so a known secret value (the
   * key, the token, a validation-env value) never reaches the model, whatever its shape.
   */
  scrub?: (text: string) => string
}

export interface ModelUsage {
  calls: number
  promptTokens: number
  cachedPromptTokens: number
  completionTokens: number
}

export interface CallRecord {
  label: string
  attempt: number
  prompt_tokens: number
  cached_prompt_tokens: number
  completion_tokens: number
  latency_ms: number
  retries: number
  usage_estimated?: true
  /** 'ok', or the error code the call ended with. */
  outcome: string
}

const SILENT: ModelLog = { info() {}, warn() {}, debug() {} }

/**
 * Chat completions on any OpenAI-compatible endpoint. Retries (408/409/429/5xx, dropped or cut
 * connections) are done here rather than in the SDK, so that retry-after is honoured within
 * the run's deadline, each retry is counted by reason, and each try has its own timeout that
 * also covers a slow stream. The API key goes to the SDK only, which sends it in the
 * Authorization header and nowhere else.
 */
export class ModelClient {
  readonly usage: ModelUsage = {
    calls: 0,
    promptTokens: 0,
    cachedPromptTokens: 0,
    completionTokens: 0
  }
  readonly calls: CallRecord[] = []
  readonly retries = Object.fromEntries(RETRY_REASONS.map((r) => [r, 0])) as Record<
    RetryReason,
    number
  >
  /** Features dropped because the endpoint refused them ('response_format', 'stream_options'). */
  readonly fallbacks: string[] = []
  private readonly client: OpenAI
  private readonly log: ModelLog
  private readonly baseUrl: string
  private structured: StructuredMode
  private streamUsage = true
  private readonly slots?: CallSlots

  constructor(private readonly options: ModelClientOptions) {
    this.baseUrl = endpointUrl(options.baseUrl)
    this.log = options.log ?? SILENT
    this.structured = options.structuredOutput ?? 'auto'
    if (options.maxInFlight) this.slots = new CallSlots(options.maxInFlight)
    this.client = new OpenAI({
      baseURL: this.baseUrl,
      apiKey: options.apiKey,
      // Explicit, so that OPENAI_ORG_ID / OPENAI_PROJECT_ID / OPENAI_LOG in the environment
      // cannot add headers or print requests.
      organization: null,
      project: null,
      logLevel: 'off',
      defaultHeaders: options.headers,
      // A backstop only: each try is aborted by its own timer, which also covers the stream.
      timeout: options.timeoutMs + 5_000,
      maxRetries: 0,
      fetch: cappedFetch(options.maxReplyBytes ?? 2 * 1024 * 1024)
    })
  }

  get model(): string {
    return this.options.model
  }

  get endpoint(): string {
    return this.baseUrl
  }

  /** Accepts a bare AbortSignal as options, as earlier callers pass it. */
  async complete(
    messages: ChatMessage[],
    options: AbortSignal | CompleteOptions = {}
  ): Promise<Completion> {
    const opts: CompleteOptions = options instanceof AbortSignal ? { signal: options } : options
    const scrub = this.options.scrub
    if (scrub)
      messages = messages.map((message) => ({ ...message, content: scrub(message.content) }))
    const label = opts.label ?? 'model call'
    const record: CallRecord = {
      label,
      attempt: opts.attempt ?? this.options.budget?.attempt ?? 0,
      prompt_tokens: 0,
      cached_prompt_tokens: 0,
      completion_tokens: 0,
      latency_ms: 0,
      retries: 0,
      outcome: 'ok'
    }
    let started = Date.now()
    this.usage.calls++
    this.calls.push(record)
    let release: (() => void) | undefined
    try {
      release = await this.slot(opts, label)
      started = Date.now() // latency is the call's own, not its wait for a slot
      await this.checkBudget(messages, label)
      const completion = await this.withRetries(messages, opts, label, record)
      record.prompt_tokens = completion.promptTokens
      record.cached_prompt_tokens = completion.cachedPromptTokens
      record.completion_tokens = completion.completionTokens
      if (completion.usageEstimated) record.usage_estimated = true
      this.usage.promptTokens += completion.promptTokens
      this.usage.cachedPromptTokens += completion.cachedPromptTokens
      this.usage.completionTokens += completion.completionTokens
      this.options.budget?.record(
        completion.promptTokens,
        completion.completionTokens,
        completion.cachedPromptTokens
      )
      this.log.debug(
        `${label}: ${completion.promptTokens} prompt + ${completion.completionTokens} completion tokens in ${completion.durationMs} ms`
      )
      return completion
    } catch (error) {
      record.outcome = error instanceof PatchsmithError ? error.code : 'MODEL_ERROR'
      throw error
    } finally {
      release?.()
      record.latency_ms = Date.now() - started
    }
  }

  /** A free call slot (maxInFlight); waiting ends like a call would when the run is stopped. */
  private async slot(opts: CompleteOptions, label: string): Promise<(() => void) | undefined> {
    if (!this.slots) return undefined
    const signals = [opts.signal, this.options.budget?.signal].filter(
      (signal): signal is AbortSignal => signal !== undefined
    )
    try {
      return await this.slots.acquire(signals.length > 0 ? AbortSignal.any(signals) : undefined)
    } catch {
      throw this.abortFailure(opts, label, false)
    }
  }

  private async checkBudget(messages: ChatMessage[], label: string): Promise<void> {
    const budget = this.options.budget
    if (!budget) return
    budget.assertTime(`before the model call for ${label}`)
    const allowance = budget.promptAllowance()
    if (allowance === Infinity) return
    const prompt = await measurePrompt(messages, allowance)
    budget.assertTokens(prompt.tokens, `by the model call for ${label}`)
  }

  private async withRetries(
    messages: ChatMessage[],
    opts: CompleteOptions,
    label: string,
    record: CallRecord
  ): Promise<Completion> {
    const budget = this.options.budget
    const maxRetries = this.options.maxRetries ?? 4
    const started = Date.now()
    for (let retries = 0; ;) {
      const remaining = (budget?.deadline ?? Infinity) - Date.now()
      if (budget && remaining <= 0) throw budget.timeLimitError(`waiting for the model (${label})`)
      const tryMs = Math.min(this.options.timeoutMs, remaining)
      const timer = new AbortController()
      const timeout = setTimeout(() => timer.abort(), tryMs)
      const outer = [opts.signal, budget?.signal].filter((s): s is AbortSignal => s !== undefined)
      try {
        const reply = await this.once(
          messages,
          opts.responseFormat,
          AbortSignal.any([timer.signal, ...outer])
        )
        return await this.completion(reply, messages, opts, Date.now() - started, retries)
      } catch (error) {
        if (outer.some((signal) => signal.aborted) || timer.signal.aborted) {
          throw this.abortFailure(opts, label, tryMs < this.options.timeoutMs)
        }
        if (error instanceof PatchsmithError) throw error
        const dropped = unsupportedFeature(error, {
          // Only `auto` falls back; an explicit json-schema or tool fails with the provider's answer.
          structured: opts.responseFormat !== undefined && this.structured === 'auto',
          streamUsage: this.streaming && this.streamUsage
        })
        if (dropped) {
          this.dropFeature(dropped, label)
          continue
        }
        const reason = retryReason(error)
        if (!reason || retries >= maxRetries) throw this.failure(error, label, retries)
        const wait = retryWait(error, retries + 1, {
          maxBackoffMs: this.options.maxBackoffMs ?? 30_000,
          maxRetryAfterMs: this.options.maxRetryAfterMs ?? 120_000
        })
        const giveUp = this.waitRefusal(wait, budget)
        if (giveUp) throw this.failure(error, label, retries, giveUp)
        retries++
        record.retries = retries
        this.retries[reason]++
        this.log.warn(
          `${label}: ${describe(error)}; retry ${retries} of ${maxRetries} in ${(wait.ms / 1000).toFixed(1)} s` +
            (wait.asked ? ' (retry-after)' : '')
        )
        try {
          await sleep(
            wait.ms,
            undefined,
            outer.length > 0 ? { signal: AbortSignal.any(outer) } : {}
          )
        } catch {
          throw this.abortFailure(opts, label, true)
        }
      } finally {
        clearTimeout(timeout)
      }
    }
  }

  private get streaming(): boolean {
    return this.options.stream ?? true
  }

  private async once(
    messages: ChatMessage[],
    format: StructuredFormat | undefined,
    signal: AbortSignal
  ): Promise<Reply> {
    const body = {
      model: this.options.model,
      ...(await requestFormat(messages, format, this.structured))
    }
    if (!this.streaming) {
      return readReply(
        await this.client.chat.completions.create({ ...body, stream: false }, { signal })
      )
    }
    const stream = await this.client.chat.completions.create(
      {
        ...body,
        stream: true,
        ...(this.streamUsage ? { stream_options: { include_usage: true } } : {})
      },
      { signal }
    )
    return readReply(stream)
  }

  private async completion(
    reply: Reply,
    messages: ChatMessage[],
    opts: CompleteOptions,
    durationMs: number,
    retries: number
  ): Promise<Completion> {
    const where = this.where(opts.label ?? 'model call')
    if (reply.refusal)
      throw new ModelError(`The model refused the request: ${reply.refusal}`, where)
    if (!reply.finishReason) {
      throw new IncompleteReply('the reply ended without a finish reason', reply.text.length)
    }
    const cutOff =
      reply.finishReason === 'length' && opts.acceptCutOff === true && !opts.responseFormat
    if (!cutOff && (reply.finishReason === 'length' || reply.finishReason === 'content_filter')) {
      throw new ModelError(
        reply.finishReason === 'length'
          ? "The model reply was cut off at the model's output limit (finish_reason: length); the partial reply was discarded."
          : 'The model endpoint filtered the reply (finish_reason: content_filter).',
        { ...where, finish_reason: reply.finishReason }
      )
    }
    const estimated = reply.usage === undefined
    const promptTokens = reply.usage?.prompt_tokens ?? (await countMessageTokens(messages))
    const completionTokens = reply.usage?.completion_tokens ?? (await countTextTokens(reply.text))
    const format = opts.responseFormat
    return {
      text: reply.text,
      ...(cutOff ? { cutOff } : {}),
      ...(format ? { parsed: parseStructured(reply.text, format) } : {}),
      promptTokens,
      cachedPromptTokens: reply.usage?.cached_prompt_tokens ?? 0,
      completionTokens,
      usageEstimated: estimated,
      durationMs,
      retries,
      finishReason: reply.finishReason
    }
  }

  private dropFeature(feature: 'structured' | 'stream_usage', label: string): void {
    if (feature === 'structured') {
      this.log.warn(
        `${label}: the endpoint refused structured output (${this.structured}); asking for JSON in the prompt instead`
      )
      this.structured = 'prompt'
      this.fallbacks.push('response_format')
    } else {
      this.log.warn(
        `${label}: the endpoint refused stream_options; token usage will be counted here`
      )
      this.streamUsage = false
      this.fallbacks.push('stream_options')
    }
  }

  private waitRefusal(
    wait: { ms: number; asked: boolean },
    budget: RunBudget | undefined
  ): string | undefined {
    const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`
    const cap = this.options.maxRetryAfterMs ?? 120_000
    if (wait.asked && wait.ms > cap) {
      return `the endpoint asked to wait ${seconds(wait.ms)} (retry-after), longer than the ${seconds(cap)} Patchsmith waits`
    }
    if (budget && Date.now() + wait.ms >= budget.deadline) {
      return `the next retry (in ${seconds(wait.ms)}) would pass the run's time-limit`
    }
    return undefined
  }

  private abortFailure(opts: CompleteOptions, label: string, deadline: boolean): PatchsmithError {
    const budget = this.options.budget
    const cancelled = budget?.cancelledError(`while waiting for the model (${label})`)
    if (cancelled) return cancelled
    if (opts.signal?.aborted) {
      return new ModelError(
        `The model call for ${label} was cancelled because another draft failed.`,
        this.where(label)
      )
    }
    if (budget && (budget.signal.aborted || deadline)) {
      budget.stoppedBy = 'time-limit'
      return budget.timeLimitError(`while waiting for the model (${label})`)
    }
    const seconds = Math.round(this.options.timeoutMs / 1000)
    return new TimeoutError(
      `The model did not answer the call for ${label} within ${seconds} s (model-timeout).`,
      { ...this.where(label), timeout_s: seconds }
    )
  }

  private failure(
    error: unknown,
    label: string,
    retries: number,
    gaveUp?: string
  ): PatchsmithError {
    const where = { ...this.where(label), retries }
    const tooLarge = replyTooLarge(error)
    if (tooLarge)
      return new ModelError(tooLarge.message, { ...where, max_reply_bytes: tooLarge.maxBytes })
    const after = retries > 0 ? ` after ${retries} ${retries === 1 ? 'retry' : 'retries'}` : ''
    const because = gaveUp ? ` (gave up: ${gaveUp})` : ''
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      return new ModelError(
        `The model endpoint answered HTTP ${error.status}${after}${because}: ${providerMessage(error)}`,
        { ...where, status: error.status }
      )
    }
    if (error instanceof OpenAI.APIConnectionError) {
      return new ModelError(
        `The model endpoint could not be reached${after}${because}: ${redactKeyEchoes(causeMessage(error))}`,
        where
      )
    }
    if (error instanceof IncompleteReply) {
      return new ModelError(
        `The model reply ended before the model finished (the stream was cut or malformed)${after}; the partial reply was discarded.`,
        { ...where, received_chars: error.receivedChars }
      )
    }
    const message = redactKeyEchoes(error instanceof Error ? error.message : String(error))
    return new ModelError(
      this.streaming
        ? `The model reply stream broke off before the model finished (${message})${after}; the partial reply was discarded.`
        : `The model reply could not be read (${message})${after}.`,
      where
    )
  }

  private where(label: string): Record<string, unknown> {
    return { model: this.options.model, base_url: this.baseUrl, call: label }
  }
}

function describe(error: unknown): string {
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    return `HTTP ${error.status} ${providerMessage(error)}`
  }
  return redactKeyEchoes(causeMessage(error))
}

/** The provider's own message, without the SDK's status prefix and with key echoes removed. */
function providerMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const text = error.message.replace(new RegExp(`^${error.status}\\s*`), '').trim()
  return redactKeyEchoes(text || 'no message')
}

/** The error's message with its causes' (e.g. "fetch failed: connect ECONNREFUSED …"). */
function causeMessage(error: unknown): string {
  const parts: string[] = []
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    const text = (e instanceof Error ? e.message : String(e)).replace(/\.$/, '')
    if (text && !parts.includes(text)) parts.push(text)
    e = (e as { cause?: unknown }).cause
  }
  return parts.join(': ')
}

// Providers echo a rejected key partly ("sk-proj-****…abcd"); logs may show no more than its
// last two characters, so such echoes go whole.
export function redactKeyEchoes(text: string): string {
  return text.replace(/\S*\*{4,}\S*/g, '[redacted key]')
}

function parseStructured(text: string, format: StructuredFormat): unknown {
  try {
    const result = format.schema.safeParse(JSON.parse(text))
    return result.success ? result.data : undefined
  } catch {
    return undefined
  }
}
