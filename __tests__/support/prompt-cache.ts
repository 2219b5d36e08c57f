/**
 * A provider's prompt cache, as the scripted model server plays it: a prompt is served from
 * the cache up to the longest prefix it shares with a prompt received before it, counted in
 * the server's tokens (characters / 4), in whole blocks, and only from a minimum length on.
 * OpenAI's documented rule is 1 024 tokens, then blocks of 128 (PROMPT_CACHE_OPENAI).
 */

export interface PromptCacheRule {
  /** Prompts sharing fewer tokens than this get no cache hit. */
  minTokens: number
  /** Cached tokens are counted in whole blocks of this many. */
  blockTokens: number
}

export const PROMPT_CACHE_OPENAI: PromptCacheRule = { minTokens: 1_024, blockTokens: 128 }
/** Every shared token counts: for tests with small prompts. */
export const PROMPT_CACHE_EXACT: PromptCacheRule = { minTokens: 0, blockTokens: 1 }

/** The longest text every one of `texts` starts with. */
export function sharedPrefix(texts: readonly string[]): string {
  if (texts.length === 0) return ''
  let end = Math.min(...texts.map((text) => text.length))
  const first = texts[0]!
  for (const text of texts.slice(1)) {
    let i = 0
    while (i < end && text.charCodeAt(i) === first.charCodeAt(i)) i++
    end = i
  }
  return first.slice(0, end)
}

export class PromptCache {
  private readonly seen: string[] = []

  constructor(private readonly rule: PromptCacheRule = PROMPT_CACHE_OPENAI) {}

  /** The cached tokens for this prompt (its messages' text joined); remembers it for later ones. */
  lookup(prompt: string): number {
    const chars = Math.max(0, ...this.seen.map((earlier) => sharedPrefix([earlier, prompt]).length))
    this.seen.push(prompt)
    const tokens = Math.floor(chars / 4)
    if (tokens < this.rule.minTokens) return 0
    return tokens - (tokens % this.rule.blockTokens)
  }
}
