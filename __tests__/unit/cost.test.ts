import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, parseRunConfig } from '../../src/config.js'
import { TokenBudgetExceededError } from '../../src/contract/index.js'
import {
  costOf,
  formatUsd,
  ModelClient,
  modelMetrics,
  parsePricing,
  RunBudget
} from '../../src/model/index.js'
import { failure } from '../support/errors.js'
import { startModelServer, type ModelServer, type ReplyScript } from '../support/model-server.js'

const servers: ModelServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

async function serve(script: ReplyScript): Promise<ModelServer> {
  const server = await startModelServer(script)
  servers.push(server)
  return server
}

const PRICING = { input: 2, cachedInput: 0.5, output: 8 }

describe('model-pricing', () => {
  it.each([
    ['2.00 0.50 8.00', PRICING],
    ['$2, $0.5, $8', PRICING],
    ['2/0.5/8', PRICING],
    ['3 15', { input: 3, cachedInput: 3, output: 15 }]
  ])('reads %j', (text, pricing) => {
    expect(parsePricing(text)).toEqual(pricing)
  })

  it.each(['', '2', '1 2 3 4', 'two 0.5 8', '-1 0.5 8', '2 0.5 8e3'])('refuses %j', (text) => {
    expect(() => parsePricing(text)).toThrow(/USD per million input, cached input and output/)
  })

  it('prices cached prompt tokens at the cached price, the rest at the input price', () => {
    const cost = costOf({ prompt: 1_000_000, cached: 400_000, completion: 100_000 }, PRICING)
    expect(cost).toEqual({ usd: 2.2, input_usd: 1.2, cached_input_usd: 0.2, output_usd: 0.8 })
    expect(formatUsd(cost.usd)).toBe('2.2')
    expect(formatUsd(0.0000004)).toBe('0')
    expect(formatUsd(0.0000123456)).toBe('0.000012')
  })

  it('is a `settings` line, and refuses a bad one naming model-pricing', () => {
    expect(parseRunConfig({ settings: ['model-pricing: 2 0.5 8'] }).modelPricing).toBe('2 0.5 8')
    const error = thrown(() => parseRunConfig({ settings: ['model-pricing: cheap'] }))
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).setting).toBe('model-pricing')
  })

  it('max-cost needs model-pricing', () => {
    const error = thrown(() => parseRunConfig({ maxCost: '0.5' }))
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).setting).toBe('max-cost')
    expect((error as Error).message).toContain('model-pricing')
    expect(parseRunConfig({ maxCost: '0.5', modelPricing: '2 0.5 8' }).maxCost).toBe(0.5)
  })
})

describe('max-cost', () => {
  const limits = { maxAttempts: 9, maxTotalTokens: 0, timeLimitMs: 0, pricing: PRICING }

  it('refuses a round once the money is spent, as the token budget does', () => {
    const budget = new RunBudget({ ...limits, maxCostUsd: 0.01 })
    budget.record(4_000, 500) // $0.008 + $0.004
    const error = thrown(() => budget.beforeAttempt(2))
    expect(error).toBeInstanceOf(TokenBudgetExceededError)
    expect((error as TokenBudgetExceededError).code).toBe('TOKEN_BUDGET_EXCEEDED')
    expect((error as Error).message).toMatch(/^max-cost \(\$0\.01\) would be passed/)
    expect((error as TokenBudgetExceededError).details).toMatchObject({
      limit: 'max-cost',
      max_cost_usd: 0.01,
      spent_usd: 0.012
    })
    expect(budget.summary()).toMatchObject({ stopped_by: 'max-cost', cost_usd: 0.012 })
  })

  it('counts cached prompt tokens at their price', () => {
    const budget = new RunBudget({ ...limits, maxCostUsd: 0.01 })
    budget.record(4_000, 500, 4_000) // $0.002 + $0.004
    expect(budget.costUsd).toBeCloseTo(0.006, 9)
    expect(budget.beforeAttempt(2)).toBeUndefined()
  })

  it('stops before sending a call whose prompt would pass it, and prices the calls made', async () => {
    const server = await serve([
      {
        content: 'first',
        usage: { prompt_tokens: 1_000, completion_tokens: 100, cached_tokens: 0 }
      },
      'never asked'
    ])
    const budget = new RunBudget({ ...limits, maxCostUsd: 0.003 })
    const model = new ModelClient({
      baseUrl: server.url,
      apiKey: 'sk-test-cost',
      model: 'gpt-test',
      timeoutMs: 60_000,
      budget
    })
    await model.complete([{ role: 'user', content: 'first call' }])
    // $0.002 + $0.0008 spent; 500 more prompt tokens would cost up to $0.001.
    const error = await failure(model.complete([{ role: 'user', content: 'word '.repeat(500) }]))
    expect(error.code).toBe('TOKEN_BUDGET_EXCEEDED')
    expect(error.details).toMatchObject({ limit: 'max-cost', spent_usd: 0.0028 })
    expect(server.requests).toHaveLength(1)
    const metrics = modelMetrics(model, undefined, budget) as {
      cost: { usd: number }
      tokens: { per_call: Array<{ cost_usd?: number }> }
    }
    expect(metrics.cost).toMatchObject({ usd: 0.0028, input_usd: 0.002, output_usd: 0.0008 })
    expect(metrics.tokens.per_call[0]!.cost_usd).toBe(0.0028)
  })
})

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}
