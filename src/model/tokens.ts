import type { ChatMessage } from './chat.js'

type Counter = (text: string) => number

// Chat framing per message (<|start|>role<|message|>…<|end|>) and the reply's priming.
const PER_MESSAGE = 4
const PER_REPLY = 3

let counter: Promise<Counter> | undefined

/**
 * The o200k_base tokenizer (GPT-4o, GPT-4.1, o-series, GPT-5), loaded on first use: its
 * tables take ~150 ms to load, which a small prompt never needs (see `fitsWithoutCounting`).
 * Other model families tokenize differently; for them the count is a close estimate.
 */
function loadTokenCounter(): Promise<Counter> {
  counter ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => {
    // Special-token text in a prompt (e.g. "<|endoftext|>" in an issue) is counted as plain text.
    const options = { disallowedSpecial: new Set<string>() }
    return (text: string) => countTokens(text, options)
  })
  return counter
}

export async function countTextTokens(text: string): Promise<number> {
  return (await loadTokenCounter())(text)
}

export async function countMessageTokens(messages: readonly ChatMessage[]): Promise<number> {
  const count = await loadTokenCounter()
  return messages.reduce((sum, message) => sum + PER_MESSAGE + count(message.content), PER_REPLY)
}

/**
 * An upper bound on the prompt's tokens without a tokenizer: a byte-level BPE token covers at
 * least one UTF-8 byte, so a prompt of N bytes is at most N tokens plus the chat framing.
 */
function tokenUpperBound(messages: readonly ChatMessage[]): number {
  return messages.reduce(
    (sum, message) => sum + PER_MESSAGE + Buffer.byteLength(message.content, 'utf8'),
    PER_REPLY
  )
}

/** The exact count when it matters; the bound when the bound already fits the limit. */
export async function measurePrompt(
  messages: readonly ChatMessage[],
  limit: number
): Promise<{ tokens: number; exact: boolean }> {
  const bound = tokenUpperBound(messages)
  if (bound <= limit) return { tokens: bound, exact: false }
  return { tokens: await countMessageTokens(messages), exact: true }
}
