import type { RunBudget } from './budget.js'
import type { DraftPrompter } from './draft-prompter.js'
import type { ModelClient } from './model-client.js'

export interface TokenTotals {
  prompt: number
  completion: number
  total: number
  calls: number
}

/**
 * The model side of the result's `metrics`: tokens per call, per draft round and in total,
 * retries by reason, features the endpoint refused, each draft's context, and the budgets.
 * The flat `model_calls` / `prompt_tokens` / `completion_tokens` keys stay for older readers.
 */
export function modelMetrics(
  model: ModelClient | undefined,
  prompter: DraftPrompter | undefined,
  budget: RunBudget | undefined
): Record<string, unknown> {
  const calls = model?.calls ?? []
  const totals = tokenTotals(model)
  const rounds = new Map<
    number,
    { calls: number; prompt_tokens: number; completion_tokens: number }
  >()
  for (const call of calls) {
    const round = rounds.get(call.attempt) ?? { calls: 0, prompt_tokens: 0, completion_tokens: 0 }
    round.calls++
    round.prompt_tokens += call.prompt_tokens
    round.completion_tokens += call.completion_tokens
    rounds.set(call.attempt, round)
  }
  return {
    model_calls: totals.calls,
    prompt_tokens: totals.prompt,
    completion_tokens: totals.completion,
    tokens: {
      ...totals,
      // Round 0 holds calls made outside a draft round (the commit message's is the last round's).
      per_attempt: [...rounds].map(([attempt, round]) => ({ attempt, ...round })),
      per_call: calls
    },
    model_retries: { ...(model?.retries ?? {}) },
    ...(model && model.fallbacks.length > 0 ? { model_fallbacks: model.fallbacks } : {}),
    ...(prompter ? { draft_context: prompter.records } : {}),
    ...(budget ? { budget: budget.summary() } : {})
  }
}

export function tokenTotals(model: ModelClient | undefined): TokenTotals {
  const prompt = model?.usage.promptTokens ?? 0
  const completion = model?.usage.completionTokens ?? 0
  return { prompt, completion, total: prompt + completion, calls: model?.usage.calls ?? 0 }
}
