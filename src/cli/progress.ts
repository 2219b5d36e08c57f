import type { Logger, Phase, RunListener } from '../run/index.js'

/** How often a long step says it is still going when nothing else was said. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 15_000

const STILL: Record<Phase, string> = {
  load: 'reading the input (and planning, without a plan)',
  reproduce: 'reproducing the issue on the base',
  draft: 'drafting',
  apply: 'applying the edits',
  validate: 'validating',
  commit: 'committing',
  push: 'pushing'
}

/**
 * The command line's progress on stderr: every line with the time since the start, a line as
 * each repository command starts and ends, the repair being drafted, and a "still …" line when
 * a step has said nothing for `intervalMs` (a validation command running for minutes).
 */
export class CliProgress implements RunListener {
  readonly ownsIssueComment = false
  private readonly started = Date.now()
  private phaseName?: Phase
  private phaseStarted = this.started
  private attempt = 1
  private running?: { command: string; started: number }
  private timer?: NodeJS.Timeout
  private stopped = false

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: { intervalMs: number; maxRepairs: number; debug: boolean }
  ) {}

  /** The run's logger: its lines are progress lines too. */
  readonly logger: Logger = {
    info: (message) => this.say(message),
    warn: (message) => this.say(`warning: ${message}`),
    debug: (message) => {
      if (this.options.debug) this.say(`debug: ${message}`)
    }
  }

  phase(phase: Phase, attempt?: number): void {
    this.phaseName = phase
    this.phaseStarted = Date.now()
    if (phase === 'draft') this.attempt = attempt ?? 1
    this.arm()
  }

  command(command: string, about?: string): (exitCode?: number) => void {
    const running = (this.running = { command, started: Date.now() })
    this.say(`Running \`${command}\`${about ? ` (${about})` : ''}`)
    return (exitCode) => {
      if (this.running === running) this.running = undefined
      const took = seconds(Date.now() - running.started)
      this.say(
        exitCode === undefined
          ? `\`${command}\` stopped after ${took}`
          : `\`${command}\` exited ${exitCode} after ${took}`
      )
    }
  }

  /** A line of its own: said now, with the time since the start. */
  say(message: string): void {
    if (this.stopped) return
    this.write(`patchsmith [${seconds(Date.now() - this.started)}] ${message}\n`)
    this.arm()
  }

  /** No more lines: the run is over. */
  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  /** The "still …" line comes `intervalMs` after the last line, whatever said it. */
  private arm(): void {
    clearTimeout(this.timer)
    if (this.stopped || !this.phaseName) return
    this.timer = setTimeout(() => this.say(this.still()), this.options.intervalMs)
    // It never keeps the process alive on its own.
    this.timer.unref()
  }

  private still(): string {
    const now = Date.now()
    if (this.running)
      return `still running \`${this.running.command}\` (${seconds(now - this.running.started)})`
    const phase = this.phaseName!
    const repair =
      phase === 'draft' && this.attempt > 1
        ? ` repair ${this.attempt - 1} of ${this.options.maxRepairs}`
        : ''
    return `still ${STILL[phase]}${repair} (${seconds(now - this.phaseStarted)})`
  }
}

/** 45 s, 3 min 05 s. */
export function seconds(ms: number): string {
  const s = Math.floor(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
}
