import type OpenAI from 'openai'
import type { Stream } from 'openai/streaming'

type ChatCompletion = OpenAI.Chat.Completions.ChatCompletion
type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk

export interface Reply {
  /** The message content, or the first tool call's arguments when there is no content. */
  text: string
  /** Undefined when the reply ended without one (a cut stream). */
  finishReason?: string
  refusal?: string
  usage?: { prompt_tokens: number; completion_tokens: number; cached_prompt_tokens: number }
}

/** One reply, from a whole completion or assembled from a stream of chunks. */
export async function readReply(
  source: ChatCompletion | Stream<ChatCompletionChunk>
): Promise<Reply> {
  if (!(Symbol.asyncIterator in source)) return fromCompletion(source)
  let content = ''
  let refusal = ''
  const toolArgs: string[] = []
  let finishReason: string | undefined
  let usage: Reply['usage']
  for await (const chunk of source) {
    if (chunk.usage) usage = usageOf(chunk.usage)
    const choice = chunk.choices?.[0]
    if (!choice) continue
    content += choice.delta?.content ?? ''
    refusal += choice.delta?.refusal ?? ''
    for (const call of choice.delta?.tool_calls ?? []) {
      toolArgs[call.index] = (toolArgs[call.index] ?? '') + (call.function?.arguments ?? '')
    }
    if (choice.finish_reason) finishReason = choice.finish_reason
  }
  return {
    text: content || (toolArgs.find((args) => args !== undefined) ?? ''),
    finishReason,
    ...(refusal ? { refusal } : {}),
    ...(usage ? { usage } : {})
  }
}

function fromCompletion(completion: ChatCompletion): Reply {
  const choice = completion.choices?.[0]
  const message = choice?.message
  const content = message?.content ?? ''
  const toolArgs = message?.tool_calls?.find((call) => call.type === 'function')
  // Some compatible servers leave finish_reason out of whole replies; a whole reply is complete.
  const finishReason = choice ? (choice.finish_reason ?? 'stop') : undefined
  return {
    text: content || (toolArgs?.type === 'function' ? toolArgs.function.arguments : ''),
    finishReason,
    ...(message?.refusal ? { refusal: message.refusal } : {}),
    ...(completion.usage ? { usage: usageOf(completion.usage) } : {})
  }
}

function usageOf(usage: {
  prompt_tokens?: number
  completion_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
  /** DeepSeek's name for the same count. */
  prompt_cache_hit_tokens?: number
}) {
  const prompt = usage.prompt_tokens ?? 0
  // The part of the prompt the provider served from its prompt cache (billed lower).
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.completion_tokens ?? 0,
    cached_prompt_tokens: Math.min(Math.max(0, cached), prompt)
  }
}
