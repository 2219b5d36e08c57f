import { runCommand, type CommandOutcome, type CommandRunnerOptions } from './command-runner.js'

export interface PipelineOutcome {
  results: CommandOutcome[]
  failed?: CommandOutcome
}

/** Runs the commands in order and stops at the first failure. */
export async function runPipeline(
  commands: readonly string[],
  options: CommandRunnerOptions
): Promise<PipelineOutcome> {
  const results: CommandOutcome[] = []
  for (const command of commands) {
    const outcome = await runCommand(command, options)
    results.push(outcome)
    if (outcome.exit_code !== 0) return { results, failed: outcome }
  }
  return { results }
}
