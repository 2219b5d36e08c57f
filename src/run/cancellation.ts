import { constants } from 'node:os'

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

interface Cancellation {
  /** Aborted (reason: the signal's name) at the first SIGINT, SIGTERM or SIGHUP. */
  signal: AbortSignal
  /** 128 + the signal's number (130, 143, 129) once one arrived, for the process to exit with. */
  exitCode(): number | undefined
  /** Stops listening (the process then ends on a signal as usual). */
  dispose(): void
}

/**
 * For an entry (the action, the CLI): the first signal starts a cancelled run's rollback; later
 * ones (GitHub sends SIGINT, then SIGTERM 7.5 s later) are noted but cannot interrupt it, since
 * a listener keeps Node from ending the process.
 */
export function cancelOnSignals(): Cancellation {
  const controller = new AbortController()
  let received: (typeof SIGNALS)[number] | undefined
  const onSignal = (name: (typeof SIGNALS)[number]) => {
    if (received) return
    received = name
    controller.abort(name)
  }
  for (const name of SIGNALS) process.on(name, onSignal)
  return {
    signal: controller.signal,
    exitCode: () => (received ? 128 + constants.signals[received] : undefined),
    dispose: () => SIGNALS.forEach((name) => process.off(name, onSignal))
  }
}
