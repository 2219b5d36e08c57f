import { CancelledError, TimeoutError, TokenBudgetExceededError } from '../contract/index.js'
import { costOf, formatUsd, type ModelPricing } from './pricing.js'

interface BudgetLimits {
  /** Draft rounds (the first draft and every repair or re-draft) at most. */
  maxAttempts: number
  /** Prompt plus completion tokens over every model call of the run; 0: no limit. */
  maxTotalTokens: number
  /** Wall time of the whole run, in ms; 0: no limit. */
  timeLimitMs: number
  /** USD over every model call of the run, priced by `pricing`; 0 or absent: no limit. */
  maxCostUsd?: number
  /** model-pricing: what the calls cost (the `cost` output); needed by maxCostUsd. */
  pricing?: ModelPricing
}

type BudgetStop = 'max-repairs' | 'max-total-tokens' | 'max-cost' | 'time-limit'

/**
 * The run's three budgets. Model calls draw on it (tokens, the deadline, the abort signal) and
 * the attempt loop asks it before each round, so a run that runs out stops between steps and
 * is rolled back whole, with the limit and the figures in its error.
 */
export class RunBudget {
  readonly startedAt = Date.now()
  /** Aborts when the time limit passes: every model call listens to it. */
  readonly signal: AbortSignal
  attempt = 0
  stoppedBy?: BudgetStop
  private tokensUsed = 0
  private readonly usage = { prompt: 0, cached: 0, completion: 0 }
  private readonly repairReasons: Record<string, number> = {}
  private readonly deadlineSignal: AbortSignal

  /** `cancel`: aborted by the entry on SIGINT, SIGTERM or SIGHUP (its reason is the signal). */
  constructor(
    readonly limits: BudgetLimits,
    private readonly cancel?: AbortSignal
  ) {
    this.deadlineSignal =
      limits.timeLimitMs > 0
        ? AbortSignal.timeout(limits.timeLimitMs)
        : new AbortController().signal
    this.signal = cancel ? AbortSignal.any([this.deadlineSignal, cancel]) : this.deadlineSignal
  }

  /** The CANCELLED error when the run was cancelled, else undefined. */
  cancelledError(when: string): CancelledError | undefined {
    return this.cancel?.aborted ? new CancelledError(String(this.cancel.reason), when) : undefined
  }

  /** Throws CANCELLED when the run was cancelled; `when` names the step for the message. */
  assertNotCancelled(when: string): void {
    const cancelled = this.cancelledError(when)
    if (cancelled) throw cancelled
  }

  /** Epoch ms when the time limit passes (Infinity without one). */
  get deadline(): number {
    return this.limits.timeLimitMs > 0 ? this.startedAt + this.limits.timeLimitMs : Infinity
  }

  get tokens(): number {
    return this.tokensUsed
  }

  /**
   * Never above 0 once the deadline has aborted the calls: its timer and Date.now() round apart,
   * so the signal may fire in the millisecond before the deadline reads as passed.
   */
  remainingMs(): number {
    const left = this.deadline - Date.now()
    return this.deadlineSignal.aborted ? Math.min(0, left) : left
  }

  /**
   * Before draft round `attempt` (1-based; `reason` says why a round after the first is
   * needed). Throws TIMEOUT or TOKEN_BUDGET_EXCEEDED (tokens or cost) when those budgets are
   * spent; returns
   * an explanation when max-repairs forbids the round (maxAttempts is 1 + max-repairs), for the loop to stop with its
   * last failure.
   */
  beforeAttempt(attempt: number, reason?: string): string | undefined {
    this.assertTime(`before draft round ${attempt}`)
    this.assertTokens(0, `before draft round ${attempt}`)
    if (attempt > this.limits.maxAttempts) {
      this.stoppedBy = 'max-repairs'
      return `max-repairs (${this.limits.maxAttempts - 1}) reached: no further draft round was started`
    }
    this.attempt = attempt
    if (attempt > 1 && reason) this.repairReasons[reason] = (this.repairReasons[reason] ?? 0) + 1
    return undefined
  }

  /** Throws TIMEOUT when the time limit has passed; `when` names the step for the message. */
  assertTime(when: string): void {
    this.assertNotCancelled(when)
    if (this.remainingMs() > 0) return
    throw this.timeLimitError(when)
  }

  /** The run's TIMEOUT at the time-limit; the budget says it stopped there (`stopped_by`). */
  timeLimitError(when: string): TimeoutError {
    this.stoppedBy = 'time-limit'
    const limit = Math.round(this.limits.timeLimitMs / 1000)
    return new TimeoutError(
      `The run reached its time-limit of ${limit} s ${when}; it was stopped and rolled back, so nothing was committed.`,
      { limit: 'time-limit', time_limit_s: limit, elapsed_ms: Date.now() - this.startedAt }
    )
  }

  /** USD spent so far (0 without pricing). */
  get costUsd(): number {
    return this.limits.pricing ? costOf(this.usage, this.limits.pricing).usd : 0
  }

  /**
   * How many prompt tokens the next call may send before max-total-tokens or max-cost refuses
   * it (a prompt is priced as uncached input: the most it can cost); Infinity without limits.
   */
  promptAllowance(): number {
    const { maxTotalTokens, maxCostUsd = 0, pricing } = this.limits
    const byTokens = maxTotalTokens > 0 ? maxTotalTokens - this.tokensUsed : Infinity
    const byCost =
      maxCostUsd > 0 && pricing && pricing.input > 0
        ? Math.floor(((maxCostUsd - this.costUsd) * 1e6) / pricing.input)
        : Infinity
    return Math.max(0, Math.min(byTokens, byCost))
  }

  /**
   * Before a call whose prompt is `promptTokens` long: refuses one that would pass
   * max-total-tokens, or max-cost with the prompt priced as uncached input.
   */
  assertTokens(promptTokens: number, when: string): void {
    this.assertCost(promptTokens, when)
    const max = this.limits.maxTotalTokens
    if (max <= 0 || this.tokensUsed + promptTokens <= max) return
    this.stoppedBy = 'max-total-tokens'
    throw new TokenBudgetExceededError(
      `max-total-tokens (${max}) would be passed ${when}: ${this.tokensUsed} tokens were used ` +
        `so far and the next prompt needs ${promptTokens}. The run was stopped and rolled back.`,
      {
        limit: 'max-total-tokens',
        max_total_tokens: max,
        used_tokens: this.tokensUsed,
        next_prompt_tokens: promptTokens
      }
    )
  }

  private assertCost(promptTokens: number, when: string): void {
    const { maxCostUsd = 0, pricing } = this.limits
    if (maxCostUsd <= 0 || !pricing) return
    const spent = this.costUsd
    const next = (promptTokens * pricing.input) / 1e6
    if (spent + next <= maxCostUsd) return
    this.stoppedBy = 'max-cost'
    throw new TokenBudgetExceededError(
      `max-cost ($${formatUsd(maxCostUsd)}) would be passed ${when}: $${formatUsd(spent)} was ` +
        `spent so far and the next prompt (${promptTokens} tokens) costs up to $${formatUsd(next)}. ` +
        'The run was stopped and rolled back.',
      {
        limit: 'max-cost',
        max_cost_usd: maxCostUsd,
        spent_usd: Number(formatUsd(spent)),
        next_prompt_usd: Number(formatUsd(next)),
        next_prompt_tokens: promptTokens
      }
    )
  }

  /** One call's usage as the provider reported it (`cachedTokens`: of the prompt). */
  record(promptTokens: number, completionTokens: number, cachedTokens = 0): void {
    this.tokensUsed += promptTokens + completionTokens
    this.usage.prompt += promptTokens
    this.usage.cached += cachedTokens
    this.usage.completion += completionTokens
  }

  summary(): Record<string, unknown> {
    return {
      max_attempts: this.limits.maxAttempts,
      max_total_tokens: this.limits.maxTotalTokens,
      time_limit_s: Math.round(this.limits.timeLimitMs / 1000),
      tokens_used: this.tokensUsed,
      ...(this.limits.maxCostUsd
        ? { max_cost_usd: this.limits.maxCostUsd, cost_usd: Number(formatUsd(this.costUsd)) }
        : {}),
      ...(Object.keys(this.repairReasons).length > 0
        ? { rounds_by_reason: this.repairReasons }
        : {}),
      ...(this.stoppedBy ? { stopped_by: this.stoppedBy } : {})
    }
  }
}
