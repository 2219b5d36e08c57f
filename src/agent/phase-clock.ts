export type Phase = 'load' | 'draft' | 'apply' | 'validate' | 'commit' | 'push'

/** Wall time spent per phase, for the result's metrics. */
export class PhaseClock {
  readonly totals: Partial<Record<Phase, number>> = {}
  private readonly started = Date.now()

  async time<T>(phase: Phase, work: () => Promise<T> | T): Promise<T> {
    const start = Date.now()
    try {
      return await work()
    } finally {
      this.totals[phase] = (this.totals[phase] ?? 0) + (Date.now() - start)
    }
  }

  elapsed(): number {
    return Date.now() - this.started
  }
}
