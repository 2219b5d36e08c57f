import OpenAI from 'openai'
import { setTimeout as sleep } from 'node:timers/promises'
import { PatchsmithError } from '../contract/index.js'
import { CallFailures, describeError } from './call-failures.js'
import { CallSlots } from './call-slots.js'
import type {
  CallRecord,
  CompleteOptions,
  Completion,
  ModelClientOptions,
  ModelLog,
  ModelUsage
} from './call-types.js'
import { exchangeOf } from './exchange.js'
import type { ChatMessage } from './chat.js'
import { cappedFetch } from './capped-fetch.js'
import { replyCompletion } from './completion.js'
import { endpointUrl } from './endpoint.js'
import { readReply, type Reply } from './reply.js'
import { RETRY_REASONS, retryReason, retryWait, type RetryReason } from './retry.js'
import {
  requestFormat,
  unsupportedFeature,
  type StructuredFormat,
  type StructuredMode
} from './structured.js'
import { measurePrompt } from './tokens.js'

const SILENT: ModelLog = { info() {}, warn() {}, debug() {} }
/** The longest retry-after honoured when the options name none. */
const MAX_RETRY_AFTER_MS = 120_000

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
  private readonly failures: CallFailures

  constructor(private readonly options: ModelClientOptions) {
    this.baseUrl = endpointUrl(options.baseUrl)
    this.log = options.log ?? SILENT
    this.structured = options.structuredOutput ?? 'auto'
    if (options.maxInFlight) this.slots = new CallSlots(options.maxInFlight)
    this.failures = new CallFailures({
      model: options.model,
      baseUrl: this.baseUrl,
      timeoutMs: options.timeoutMs,
      streaming: this.streaming,
      maxRetryAfterMs: options.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS,
      budget: options.budget
    })
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

  async complete(messages: ChatMessage[], opts: CompleteOptions = {}): Promise<Completion> {
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
      this.options.onExchange?.(exchangeOf(record, messages, completion))
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
      throw this.failures.aborted(opts.signal, label, false)
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
      const remaining = budget ? budget.remainingMs() : Infinity
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
        return await replyCompletion(
          reply,
          messages,
          opts,
          Date.now() - started,
          retries,
          this.failures.where(label)
        )
      } catch (error) {
        if (outer.some((signal) => signal.aborted) || timer.signal.aborted) {
          throw this.failures.aborted(opts.signal, label, tryMs < this.options.timeoutMs)
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
        if (!reason || retries >= maxRetries) throw this.failures.failed(error, label, retries)
        const wait = retryWait(error, retries + 1, {
          maxBackoffMs: this.options.maxBackoffMs ?? 30_000,
          maxRetryAfterMs: this.options.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS
        })
        const giveUp = this.failures.waitRefusal(wait)
        if (giveUp) throw this.failures.failed(error, label, retries, giveUp)
        retries++
        record.retries = retries
        this.retries[reason]++
        this.log.warn(
          `${label}: ${describeError(error)}; retry ${retries} of ${maxRetries} in ${(wait.ms / 1000).toFixed(1)} s` +
            (wait.asked ? ' (retry-after)' : '')
        )
        try {
          await sleep(
            wait.ms,
            undefined,
            outer.length > 0 ? { signal: AbortSignal.any(outer) } : {}
          )
        } catch {
          throw this.failures.aborted(opts.signal, label, true)
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
}
