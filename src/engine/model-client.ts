import type { RunConfig } from '../config.js'
import { InvalidInputError } from '../contract/index.js'
import {
  ModelClient,
  parseHeaderLines,
  secretHint,
  type ModelClientOptions,
  type RunBudget
} from '../model/index.js'
import type { Logger } from '../run/index.js'

const OPENAI_HOST = /^https:\/\/api\.openai\.com\b/

/** The client for the run: endpoint, key and headers from the settings, bound to the budget. */
export function modelClient(
  config: RunConfig,
  budget: RunBudget,
  logger: Logger,
  secret: (value: string) => void,
  scrub?: (text: string) => string,
  onExchange?: ModelClientOptions['onExchange']
): ModelClient {
  const apiKey = modelKey(config)
  const headers = parseHeaderLines(config.modelHeaders)
  // Header values often carry a gateway's own key; short ones (e.g. "1") would mask too much.
  Object.values(headers)
    .filter((value) => value.length >= 8)
    .forEach(secret)
  const client = new ModelClient({
    baseUrl: config.baseUrl,
    apiKey,
    model: config.model,
    timeoutMs: config.modelTimeout * 1000,
    maxRetries: config.modelRetries,
    maxInFlight: config.concurrency,
    headers,
    stream: config.modelStream,
    structuredOutput: config.structuredOutput,
    budget,
    log: logger,
    scrub,
    onExchange
  })
  const key = config.apiKey ? `key ${secretHint(apiKey)}` : 'no key'
  const extra = Object.keys(headers)
  logger.info(
    `Model ${config.model} at ${client.endpoint} (${key}` +
      (extra.length > 0 ? `, headers ${extra.join(', ')}` : '') +
      `); at most ${config.maxTokensPerDraft} prompt tokens per draft`
  )
  return client
}

export function modelKey(config: RunConfig): string {
  if (config.apiKey) return config.apiKey
  if (OPENAI_HOST.test(config.baseUrl)) {
    throw new InvalidInputError(
      'No API key: set the "api-key" input (CLI: the OPENAI_API_KEY variable or --api-key-file FILE).',
      { field: 'api-key' }
    )
  }
  return 'none'
}
