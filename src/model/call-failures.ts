import OpenAI from 'openai'
import { ModelError, PatchsmithError, TimeoutError } from '../contract/index.js'
import type { RunBudget } from './budget.js'
import { replyTooLarge } from './capped-fetch.js'
import { IncompleteReply } from './retry.js'

/** What a failed call's error names: where the call went and how it was bounded. */
interface CallSite {
  model: string
  baseUrl: string
  timeoutMs: number
  streaming: boolean
  maxRetryAfterMs: number
  budget?: RunBudget
}

/** Turns the ways a model call ends badly into the errors and log lines a maintainer reads. */
export class CallFailures {
  constructor(private readonly site: CallSite) {}

  where(label: string): Record<string, unknown> {
    return { model: this.site.model, base_url: this.site.baseUrl, call: label }
  }

  /** Why a retry's wait is not worth waiting, or undefined when it is. */
  waitRefusal(wait: { ms: number; asked: boolean }): string | undefined {
    const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`
    const cap = this.site.maxRetryAfterMs
    if (wait.asked && wait.ms > cap) {
      return `the endpoint asked to wait ${seconds(wait.ms)} (retry-after), longer than the ${seconds(cap)} Patchsmith waits`
    }
    const budget = this.site.budget
    if (budget && Date.now() + wait.ms >= budget.deadline) {
      return `the next retry (in ${seconds(wait.ms)}) would pass the run's time-limit`
    }
    return undefined
  }

  /** The call was aborted: the run was stopped, a sibling draft failed, or time ran out. */
  aborted(signal: AbortSignal | undefined, label: string, deadline: boolean): PatchsmithError {
    const budget = this.site.budget
    const cancelled = budget?.cancelledError(`while waiting for the model (${label})`)
    if (cancelled) return cancelled
    if (signal?.aborted) {
      return new ModelError(
        `The model call for ${label} was cancelled because another draft failed.`,
        this.where(label)
      )
    }
    if (budget && (budget.signal.aborted || deadline))
      return budget.timeLimitError(`while waiting for the model (${label})`)
    const seconds = Math.round(this.site.timeoutMs / 1000)
    return new TimeoutError(
      `The model did not answer the call for ${label} within ${seconds} s (model-timeout).`,
      { ...this.where(label), timeout_s: seconds }
    )
  }

  failed(error: unknown, label: string, retries: number, gaveUp?: string): PatchsmithError {
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
      this.site.streaming
        ? `The model reply stream broke off before the model finished (${message})${after}; the partial reply was discarded.`
        : `The model reply could not be read (${message})${after}.`,
      where
    )
  }
}

/** One line for a retry's log: the status and the provider's message, or the cause. */
export function describeError(error: unknown): string {
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
function redactKeyEchoes(text: string): string {
  return text.replace(/\S*\*{4,}\S*/g, '[redacted key]')
}
