import type { CommandVerdict, Failure } from './types.js'

interface CommandFailure extends Failure {
  command: string
}

export interface Settled {
  /** Failures the draft must fix: a repair is asked for each round while any remains. */
  targets: CommandFailure[]
  /** Failures that were on the base already and that nothing ties to the issue. */
  unrelated: CommandFailure[]
}

/** The failures across the validation commands, split into targets and unrelated base failures. */
export function settle(verdicts: readonly CommandVerdict[]): Settled {
  const all = verdicts.flatMap((v) => v.failures.map((f) => ({ ...f, command: v.command })))
  return {
    targets: all.filter((f) => f.kind === 'target'),
    unrelated: all.filter((f) => f.kind === 'unrelated')
  }
}
