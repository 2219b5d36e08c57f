/**
 * model-pricing: what the provider charges, in USD per million input tokens, cached input
 * tokens and output tokens; the `cost` output and max-cost are reckoned from it and from the
 * usage each call reports.
 */
export interface ModelPricing {
  /** USD per million prompt tokens not read from the provider's prompt cache. */
  input: number
  /** USD per million prompt tokens read from the prompt cache. */
  cachedInput: number
  /** USD per million completion tokens. */
  output: number
}

interface TokenUsage {
  prompt: number
  /** Of `prompt`, the tokens read from the prompt cache. */
  cached: number
  completion: number
}

const PRICING_FORMAT =
  'three numbers, USD per million input, cached input and output tokens, e.g. "2.00 0.50 8.00" (two numbers: cached input costs as input)'

/** `2.00 0.50 8.00` (or with commas, slashes, `$`); two numbers: cached input at the input price. */
export function parsePricing(text: string): ModelPricing {
  const parts = text
    .trim()
    .split(/[\s,/]+/)
    .filter((part) => part !== '')
    .map((part) => part.replace(/^\$/, ''))
  const numbers = parts.map(Number)
  if (
    (parts.length !== 2 && parts.length !== 3) ||
    parts.some((part) => !/^\d+(\.\d+)?$/.test(part)) ||
    numbers.some((value) => !Number.isFinite(value))
  )
    throw new Error(`expected ${PRICING_FORMAT}, got "${text}"`)
  const [input, second, third] = numbers as [number, number, number | undefined]
  return third === undefined
    ? { input, cachedInput: input, output: second }
    : { input, cachedInput: second, output: third }
}

/** The USD cost of this usage, in its three parts and in total (unrounded). */
export function costOf(
  usage: TokenUsage,
  pricing: ModelPricing
): { usd: number; input_usd: number; cached_input_usd: number; output_usd: number } {
  const cached = Math.min(usage.cached, usage.prompt)
  const input_usd = ((usage.prompt - cached) * pricing.input) / 1e6
  const cached_input_usd = (cached * pricing.cachedInput) / 1e6
  const output_usd = (usage.completion * pricing.output) / 1e6
  return { usd: input_usd + cached_input_usd + output_usd, input_usd, cached_input_usd, output_usd }
}

/** A USD amount as the `cost` output and messages show it: at most 6 decimals, no exponent. */
export function formatUsd(usd: number): string {
  const rounded = Number(usd.toFixed(6))
  return rounded === 0 ? '0' : rounded.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')
}
