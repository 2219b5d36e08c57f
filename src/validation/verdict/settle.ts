import type { CommandVerdict, Failure } from './types.js'

export interface CommandFailure extends Failure {
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

/**
 * The repair prompt's first words: what the draft left failing, and how it relates to the base,
 * so the model does not take a failure it did not fix for one that was always there.
 */
export function repairNote(settled: Settled): string {
  const lines = settled.targets.slice(0, 10).map((f) => `- ${describe(f)}`)
  const more = settled.targets.length > 10 ? [`- and ${settled.targets.length - 10} more`] : []
  const unrelated =
    settled.unrelated.length > 0
      ? [
          `These fail on the base branch the same way and are not part of this issue; leave them: ${settled.unrelated
            .slice(0, 10)
            .map((f) => f.id)
            .join(', ')}`
        ]
      : []
  return [`The draft did not fix it: still`, ...lines, ...more, ...unrelated].join('\n')
}

function describe(f: CommandFailure): string {
  const what = f.message ? `: ${f.message.split('\n').slice(0, 3).join(' | ')}` : ''
  switch (f.reason) {
    case 'new':
      return `${f.id} fails after the draft but passes on the base (the draft broke it)${what}`
    case 'changed':
      return `${f.id} fails, differently than on the base${what}`
    case 'named':
    case 'same-on-base':
      return `${f.id} fails exactly as on the base (the issue names it)${what}`
    case 'base-unknown':
      return `${f.id} fails${what}`
  }
}
