import OpenAI from 'openai'
import { ModelError, TimeoutError } from '../contract/index.js'

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface Completion {
  text: string
  promptTokens: number
  completionTokens: number
  durationMs: number
}

export interface ModelClientOptions {
  baseUrl: string
  apiKey: string
  model: string
  timeoutMs: number
  maxRetries?: number
}

export interface ModelUsage {
  calls: number
  promptTokens: number
  completionTokens: number
}

/** Chat completions on any OpenAI-compatible endpoint, with usage counted per run. */
export class ModelClient {
  readonly usage: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0 }
  private readonly client: OpenAI

  constructor(private readonly options: ModelClientOptions) {
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey,
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries ?? 2
    })
  }

  get model(): string {
    return this.options.model
  }

  async complete(messages: ChatMessage[], signal?: AbortSignal): Promise<Completion> {
    const started = Date.now()
    this.usage.calls++
    try {
      const response = await this.client.chat.completions.create(
        { model: this.options.model, messages },
        { signal }
      )
      const promptTokens = response.usage?.prompt_tokens ?? 0
      const completionTokens = response.usage?.completion_tokens ?? 0
      this.usage.promptTokens += promptTokens
      this.usage.completionTokens += completionTokens
      const text = response.choices?.[0]?.message?.content ?? ''
      return { text, promptTokens, completionTokens, durationMs: Date.now() - started }
    } catch (error) {
      throw asModelFailure(error, this.options)
    }
  }
}

function asModelFailure(error: unknown, options: ModelClientOptions): Error {
  const where = { model: options.model, base_url: options.baseUrl }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new TimeoutError(
      `The model did not answer within ${options.timeoutMs} ms (model-timeout).`,
      where
    )
  }
  if (error instanceof OpenAI.APIUserAbortError) {
    return new ModelError('The model call was cancelled because another draft failed.', where)
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const message = error.message || 'no message'
    return new ModelError(`The model endpoint answered HTTP ${error.status}: ${message}`, {
      ...where,
      status: error.status
    })
  }
  const message = error instanceof Error ? error.message : String(error)
  return new ModelError(`The model call failed: ${message}`, where)
}
