import { CancelledError, TimeoutError, TokenBudgetExceededError } from '../contract/index.js'

export interface BudgetLimits {
  /** Draft rounds (the first draft and every repair or re-draft) at most. */
  maxAttempts: number
  /** Prompt plus completion tokens over every model call of the run; 0: no limit. */
  maxTotalTokens: number
  /** Wall time of the whole run, in ms; 0: no limit. */
  timeLimitMs: number
}

export type BudgetStop = 'max-attempts' | 'max-total-tokens' | 'time-limit'

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
  private readonly repairReasons: Record<string, number> = {}

  /** `cancel`: aborted by the entry on SIGINT, SIGTERM or SIGHUP (its reason is the signal). */
  constructor(
    readonly limits: BudgetLimits,
    private readonly cancel?: AbortSignal
  ) {
    const deadline =
      limits.timeLimitMs > 0
        ? AbortSignal.timeout(limits.timeLimitMs)
        : new AbortController().signal
    this.signal = cancel ? AbortSignal.any([deadline, cancel]) : deadline
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

  remainingMs(): number {
    return this.deadline - Date.now()
  }

  /**
   * Before draft round `attempt` (1-based; `reason` says why a round after the first is
   * needed). Throws TIMEOUT or TOKEN_BUDGET_EXCEEDED when those budgets are spent; returns
   * an explanation when `max-attempts` forbids the round, for the loop to stop with its
   * last failure.
   */
  beforeAttempt(attempt: number, reason?: string): string | undefined {
    this.assertTime(`before draft round ${attempt}`)
    this.assertTokens(0, `before draft round ${attempt}`)
    if (attempt > this.limits.maxAttempts) {
      this.stoppedBy = 'max-attempts'
      return `max-attempts (${this.limits.maxAttempts}) reached: no further draft round was started`
    }
    this.attempt = attempt
    if (attempt > 1 && reason) this.repairReasons[reason] = (this.repairReasons[reason] ?? 0) + 1
    return undefined
  }

  /** Throws TIMEOUT when the time limit has passed; `when` names the step for the message. */
  assertTime(when: string): void {
    this.assertNotCancelled(when)
    if (this.remainingMs() > 0) return
    this.stoppedBy = 'time-limit'
    throw this.timeLimitError(when)
  }

  timeLimitError(when: string): TimeoutError {
    const limit = Math.round(this.limits.timeLimitMs / 1000)
    return new TimeoutError(
      `The run reached its time-limit of ${limit} s ${when}; it was stopped and rolled back, so nothing was committed.`,
      { limit: 'time-limit', time_limit_s: limit, elapsed_ms: Date.now() - this.startedAt }
    )
  }

  /** Before a call whose prompt is `promptTokens` long: refuses one that would pass the limit. */
  assertTokens(promptTokens: number, when: string): void {
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

  record(promptTokens: number, completionTokens: number): void {
    this.tokensUsed += promptTokens + completionTokens
  }

  summary(): Record<string, unknown> {
    return {
      max_attempts: this.limits.maxAttempts,
      max_total_tokens: this.limits.maxTotalTokens,
      time_limit_s: Math.round(this.limits.timeLimitMs / 1000),
      tokens_used: this.tokensUsed,
      ...(Object.keys(this.repairReasons).length > 0
        ? { rounds_by_reason: this.repairReasons }
        : {}),
      ...(this.stoppedBy ? { stopped_by: this.stoppedBy } : {})
    }
  }
}
