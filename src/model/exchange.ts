import type { CallRecord, Completion, ModelExchange } from './call-types.js'
import type { ChatMessage } from './chat.js'

/** A call that got its reply, as ModelClientOptions.onExchange is told of it. */
export function exchangeOf(
  record: CallRecord,
  messages: readonly ChatMessage[],
  completion: Completion
): ModelExchange {
  return {
    label: record.label,
    attempt: record.attempt,
    messages: messages.map(({ role, content }) => ({ role, content })),
    reply: completion.text,
    finishReason: completion.finishReason,
    usage: {
      prompt_tokens: completion.promptTokens,
      completion_tokens: completion.completionTokens,
      cached_prompt_tokens: completion.cachedPromptTokens
    }
  }
}
