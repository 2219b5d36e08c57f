export type Phase = 'load' | 'reproduce' | 'draft' | 'apply' | 'validate' | 'commit' | 'push'

/** Told when each phase begins (the progress comment); it must not throw or wait. */
export interface RunListener {
  /**
   * The run may go on: the person who started it holds the permission it needs. Called once,
   * before anything is read or changed (the progress comment is posted then, never before).
   */
  start?(): Promise<void>
  /** `attempt`: the draft round (1: the first draft, 2: the first repair). */
  phase(phase: Phase, attempt?: number): void
  /** A repository command starts (setup, validation, a fix, the base check); the returned function is called as it ends. */
  command?(command: string, about?: string): (exitCode?: number) => void
  /** The listener tells the outcome on the issue: no second failure comment. */
  readonly ownsIssueComment: boolean
  /** The issue (or pull request) whose comment it tells the outcome in, when it has one. */
  readonly issueNumber?: number
}

/** Wall time spent per phase, for the result's metrics. */
export class PhaseClock {
  readonly totals: Partial<Record<Phase, number>> = {}
  private readonly started = Date.now()

  constructor(private readonly listener?: RunListener) {}

  async time<T>(phase: Phase, work: () => Promise<T> | T, attempt?: number): Promise<T> {
    this.listener?.phase(phase, attempt)
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
