import { SecurityViolationError } from '../contract/index.js'
import { readCommandLine } from '../validation/index.js'

/**
 * The plan is written by a model that read untrusted text, so its commands run only when a
 * maintainer trusted them: listed in `validation-commands`, or `allow-plan-commands: true`.
 * Returns the commands to run: the plan's, then the trusted ones the plan did not name.
 */
export function assertCommandsAllowed(
  planLines: readonly string[],
  trustedCommands: readonly string[],
  allowPlanCommands: boolean,
  /** The named steps' commands (`lint: npm run lint` in validation-commands): trusted too. */
  stepCommands: readonly string[] = []
): string[] {
  const trusted = new Set([...trustedCommands, ...stepCommands])
  // A planner may name its commands (`lint: npm run lint`): what runs is the command.
  const planCommands = planLines.map((line) => readCommandLine(line).command)
  const untrusted = planCommands.filter((command) => !trusted.has(command))
  if (untrusted.length > 0 && !allowPlanCommands) {
    throw new SecurityViolationError(
      `The plan asks to run ${untrusted.map((c) => JSON.stringify(c)).join(', ')}, which is not a trusted ` +
        'validation command. List it in the "validation-commands" input (CLI: --validation-command; a `lint:`, `test:` … line counts too) or set ' +
        '"allow-plan-commands: true" if plan-written commands may run in this repository.',
      { rule: 'command-not-allowed', commands: untrusted }
    )
  }
  return [...new Set([...planCommands, ...trustedCommands])]
}
