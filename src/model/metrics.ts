import type { RunBudget } from './budget.js'
import type { DraftPrompter } from './draft-prompter.js'
import type { ModelClient } from './model-client.js'
import { costOf, formatUsd, type ModelPricing } from './pricing.js'

interface TokenTotals {
  prompt: number
  /** Of `prompt`, the tokens the provider read from its prompt cache. */
  cached: number
  completion: number
  total: number
  calls: number
}

/**
 * The model side of the result's `metrics`: tokens per call, per draft round and in total,
 * the cost in USD with model-pricing (per call too), retries by reason, features the
 * endpoint refused, each draft's context, and the budgets.
 * The flat `model_calls` / `prompt_tokens` / `completion_tokens` keys stay for older readers.
 */
export function modelMetrics(
  model: ModelClient | undefined,
  prompter: DraftPrompter | undefined,
  budget: RunBudget | undefined
): Record<string, unknown> {
  const pricing = budget?.limits.pricing
  const calls = (model?.calls ?? []).map((call) =>
    pricing ? { ...call, cost_usd: callCost(call, pricing) } : call
  )
  const totals = tokenTotals(model)
  type Round = {
    calls: number
    prompt_tokens: number
    cached_prompt_tokens: number
    completion_tokens: number
  }
  const rounds = new Map<number, Round>()
  for (const call of calls) {
    const round = rounds.get(call.attempt) ?? {
      calls: 0,
      prompt_tokens: 0,
      cached_prompt_tokens: 0,
      completion_tokens: 0
    }
    round.calls++
    round.prompt_tokens += call.prompt_tokens
    round.cached_prompt_tokens += call.cached_prompt_tokens
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
    ...(pricing ? { cost: costMetrics(totals, pricing) } : {}),
    model_retries: { ...(model?.retries ?? {}) },
    ...(model && model.fallbacks.length > 0 ? { model_fallbacks: model.fallbacks } : {}),
    ...(prompter ? { draft_context: prompter.records } : {}),
    ...(budget ? { budget: budget.summary() } : {})
  }
}

function tokenTotals(model: ModelClient | undefined): TokenTotals {
  const prompt = model?.usage.promptTokens ?? 0
  const completion = model?.usage.completionTokens ?? 0
  const cached = model?.usage.cachedPromptTokens ?? 0
  return { prompt, cached, completion, total: prompt + completion, calls: model?.usage.calls ?? 0 }
}

const usd = (value: number) => Number(formatUsd(value))

function callCost(
  call: { prompt_tokens: number; cached_prompt_tokens: number; completion_tokens: number },
  pricing: ModelPricing
): number {
  const usage = {
    prompt: call.prompt_tokens,
    cached: call.cached_prompt_tokens,
    completion: call.completion_tokens
  }
  return usd(costOf(usage, pricing).usd)
}

/** `metrics.cost`: the run's USD cost (the `cost` output), its parts, and the pricing used. */
function costMetrics(totals: TokenTotals, pricing: ModelPricing): Record<string, unknown> {
  const cost = costOf(totals, pricing)
  return {
    usd: usd(cost.usd),
    input_usd: usd(cost.input_usd),
    cached_input_usd: usd(cost.cached_input_usd),
    output_usd: usd(cost.output_usd),
    pricing_per_million: {
      input: pricing.input,
      cached_input: pricing.cachedInput,
      output: pricing.output
    }
  }
}
