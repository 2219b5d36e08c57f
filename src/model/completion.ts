import { ModelError } from '../contract/index.js'
import type { CompleteOptions, Completion } from './call-types.js'
import type { ChatMessage } from './chat.js'
import type { Reply } from './reply.js'
import { IncompleteReply } from './retry.js'
import type { StructuredFormat } from './structured.js'
import { countMessageTokens, countTextTokens } from './tokens.js'

/**
 * A whole reply as the caller's Completion: a refusal, a missing finish reason or a cut or
 * filtered reply are refused; tokens the endpoint did not report are counted here.
 */
export async function replyCompletion(
  reply: Reply,
  messages: ChatMessage[],
  opts: CompleteOptions,
  durationMs: number,
  retries: number,
  where: Record<string, unknown>
): Promise<Completion> {
  if (reply.refusal) throw new ModelError(`The model refused the request: ${reply.refusal}`, where)
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

function parseStructured(text: string, format: StructuredFormat): unknown {
  try {
    const result = format.schema.safeParse(JSON.parse(text))
    return result.success ? result.data : undefined
  } catch {
    return undefined
  }
}
