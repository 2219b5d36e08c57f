import type { RunBudget } from './budget.js'
import type { ChatMessage } from './chat.js'
import type { StructuredFormat, StructuredMode } from './structured.js'

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
  /** Told of each call that got a reply, as sent and as answered (the run's replay recording). */
  onExchange?: (exchange: ModelExchange) => void
}

/** One model call as it went over the wire: the messages sent (scrubbed) and the reply. */
export interface ModelExchange {
  label: string
  attempt: number
  messages: ChatMessage[]
  reply: string
  finishReason: string
  usage: { prompt_tokens: number; completion_tokens: number; cached_prompt_tokens: number }
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
