import { runAgent, type Logger } from '../agent/index.js'
import { parseCliArgs, usage, UsageError } from './args.js'
import { ConfigError, parseRunConfig } from '../config.js'

const stderrLogger: Logger = {
  info: (message) => process.stderr.write(`patchsmith: ${message}\n`),
  warn: (message) => process.stderr.write(`patchsmith: warning: ${message}\n`),
  debug: (message) => {
    if (process.env.PATCHSMITH_DEBUG) process.stderr.write(`patchsmith: debug: ${message}\n`)
  }
}

/** The command line on the same engine as the action. Returns the exit code. */
export async function cli(argv: readonly string[]): Promise<number> {
  let config
  try {
    const { command, settings, help } = parseCliArgs(argv)
    if (help || command === 'help') {
      process.stdout.write(`${usage()}\n`)
      return 0
    }
    if (command !== 'run')
      throw new UsageError(command ? `Unknown command "${command}".` : 'No command given.')
    config = parseRunConfig({ apiKey: process.env.OPENAI_API_KEY || undefined, ...settings })
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError)) throw error
    process.stderr.write(`patchsmith: ${error.message}\n\n${usage()}\n`)
    return 2
  }
  const { response, outputPath } = await runAgent(config, {
    logger: stderrLogger,
    repository: process.env.GITHUB_REPOSITORY
  })
  if (config.outputPath) stderrLogger.info(`Result written to ${outputPath}`)
  else process.stdout.write(`${JSON.stringify(response, null, 2)}\n`)
  return response.success ? 0 : 1
}
