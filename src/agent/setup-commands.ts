import type { RunConfig } from '../config.js'
import { PatchsmithError } from '../contract/index.js'
import { runCommand, type CommandRunnerOptions } from '../validation/index.js'
import type { Logger } from '../run/index.js'

/**
 * `setup-commands` (e.g. `npm ci`), once, on the base commit, before any model-written code is
 * in the tree: in the sandbox like validation, but with the network, so dependencies install
 * and validation can then run offline. The first failure stops the run (recoverable: a rerun
 * after fixing the command or the registry may pass).
 */
export async function runSetupCommands(
  config: RunConfig,
  runner: CommandRunnerOptions,
  logger: Logger
): Promise<void> {
  for (const command of config.setupCommands) {
    logger.info(`Setup: ${command}`)
    const outcome = await runCommand(command, { ...runner, network: 'open', about: 'setup' })
    if (outcome.exit_code === 0) continue
    const output = (outcome.stderr.trim() || outcome.stdout.trim()).split('\n').slice(-5)
    throw new PatchsmithError(
      'VALIDATION_FAILED',
      `The setup command \`${command}\` failed (exit ${outcome.exit_code}) on the base commit, before any model call: ${output.join(' ') || 'no output'}. Fix the command in setup-commands (or the repository's setup) and rerun.`,
      {
        rule: 'setup-failed',
        command,
        exit_code: outcome.exit_code,
        stdout: outcome.stdout,
        stderr: outcome.stderr
      },
      true
    )
  }
}
