import { cancelOnSignals, runnerFacts, type Logger } from '../run/index.js'
import { recoverByHand } from '../engine/index.js'
import { modeSettings, runMode } from '../modes/index.js'
import { resolve } from 'node:path'
import { parseCliArgs, usage, UsageError } from './args.js'
import { ConfigError, parseRunConfig } from '../config.js'
import { toAgentError, type CodeAgentOutput } from '../contract/index.js'
import { inertForLog, inertJson } from '../model/index.js'
import { writeOutputFile } from '../report/index.js'
import packageJson from '../../package.json' with { type: 'json' }
import { CliProgress, DEFAULT_PROGRESS_INTERVAL_MS } from './progress.js'
import { cliSummary } from './summary.js'
import { budgetCommand } from './budget.js'
import { replayCommand, type ReplayIo } from './replay.js'

/** A workflow step that runs the CLI logs its stderr and stdout: nothing there may run a command. */
const toStderr = (text: string) => process.stderr.write(inertForLog(text))
const printJson = (value: unknown) =>
  process.stdout.write(`${inertJson(JSON.stringify(value, null, 2))}\n`)
const say = (line: string) => toStderr(`${line}\n`)

/** `recover`'s lines; a run's go through its CliProgress. */
const stderrLogger: Logger = {
  info: (message) => say(`patchsmith: ${message}`),
  warn: (message) => say(`patchsmith: warning: ${message}`),
  debug: (message) => {
    if (process.env.PATCHSMITH_DEBUG) say(`patchsmith: debug: ${message}`)
  }
}

/** The command line on the same engine as the action. Returns the exit code. */
export async function cli(argv: readonly string[]): Promise<number> {
  let config
  let command
  let bodyPath: string | undefined
  let json = false
  try {
    const parsed = parseCliArgs(argv)
    command = parsed.command
    bodyPath = parsed.pullRequestBody && resolve(parsed.pullRequestBody)
    json = parsed.json
    if (parsed.help || command === 'help') {
      process.stdout.write(`${usage()}\n`)
      return 0
    }
    if (parsed.version) {
      process.stdout.write(`${packageJson.version}\n`)
      return 0
    }
    if (command === 'recover') {
      const repo = resolve(parsed.settings.repo ?? '.')
      const token = process.env.GITHUB_TOKEN || parsed.settings.githubToken
      return await recoverByHand(repo, token, stderrLogger)
    }
    if (command === 'budget')
      return await budgetCommand(parsed.settings, {
        json,
        warn: say,
        print: (text) => process.stdout.write(json ? inertJson(text) : inertForLog(text))
      })
    if (command === 'replay') return await replayCommand(parsed, replayIo)
    if (command !== 'run' && command !== 'commit' && command !== 'follow-up')
      throw new UsageError(command ? `Unknown command "${command}".` : 'No command given.')
    const settings = {
      apiKey: process.env.OPENAI_API_KEY || undefined,
      githubToken: process.env.GITHUB_TOKEN || undefined,
      ...parsed.settings
    }
    if (command === 'follow-up' && !settings.followUp)
      throw new UsageError('follow-up needs the pull request: --pr NUMBER.')
    config = parseRunConfig(modeSettings(command, settings))
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError)) throw error
    // One line naming the problem: the whole list would bury it.
    say(`patchsmith: ${error.message.replace(/\.$/, '')}; see patchsmith --help`)
    return 2
  }
  const progress = new CliProgress(toStderr, {
    intervalMs: progressInterval(process.env.PATCHSMITH_PROGRESS_SECONDS),
    maxRepairs: config.maxRepairs,
    debug: Boolean(process.env.PATCHSMITH_DEBUG)
  })
  const started = Date.now()
  const cancellation = cancelOnSignals()
  try {
    // The CLI has no event to read: an issue comes from --issue or --issue-number.
    const env = {
      ...runnerFacts({ ...process.env, GITHUB_EVENT_PATH: undefined }),
      logger: progress.logger,
      progress,
      cancel: cancellation.signal,
      // --no-push never moves the branch a person has checked out (`commit`: the seed's contract).
      unpushedOnOwnBranch: command === 'run',
      // Checked before any work (a folder, a socket there is refused), hidden from validation.
      outputFiles: bodyPath ? [{ path: bodyPath, field: 'pull-request-body' }] : []
    }
    const run = await runMode(command, config, env)
    if (bodyPath) writePullRequestBody(run.response, bodyPath, config.dryRun, progress.logger)
    progress.stop()
    toStderr(
      cliSummary({
        response: run.response,
        branch: run.branch,
        dryRun: config.dryRun,
        push: config.push,
        elapsedMs: Date.now() - started,
        resultFile: run.outputPath,
        defaultResult: !config.outputPath,
        json
      })
    )
    if (json) printJson(run.result)
    return cancellation.exitCode() ?? exitCode(run.response)
  } catch (thrown) {
    // What failed before a run could write its result (GitHub down while a follow-up reads the
    // pull request, say): the same JSON shape, the error named, no stack unless it is our bug.
    const error = toAgentError(thrown)
    if (error.code === 'INTERNAL_ERROR' && thrown instanceof Error && thrown.stack)
      progress.logger.warn(thrown.stack)
    progress.stop()
    const response = { success: false, error }
    const elapsedMs = Date.now() - started
    toStderr(cliSummary({ ...RAN_NOTHING, response, elapsedMs, json }))
    if (json) printJson(response)
    return cancellation.exitCode() ?? 1
  } finally {
    progress.stop()
    cancellation.dispose()
  }
}

/** 0 committed or awaiting approval, 75 (EX_TEMPFAIL: try again later) not started for the budget, 1 failed. */
function exitCode(response: CodeAgentOutput): number {
  if (response.success || response.awaiting_approval) return 0
  return response.outcome === 'budget-exhausted' ? BUDGET_EXHAUSTED_EXIT : 1
}

const BUDGET_EXHAUSTED_EXIT = 75

const RAN_NOTHING = { branch: '', dryRun: false, push: false }

/** What `replay` prints with: the same stderr and stdout as a run, and a run's progress lines. */
const replayIo: ReplayIo = {
  say,
  printJson,
  progress: (config) =>
    new CliProgress(toStderr, {
      intervalMs: progressInterval(process.env.PATCHSMITH_PROGRESS_SECONDS),
      maxRepairs: config.maxRepairs,
      debug: Boolean(process.env.PATCHSMITH_DEBUG)
    })
}

/** PATCHSMITH_PROGRESS_SECONDS: how often a long step says it is still going (default 15 s). */
function progressInterval(value: string | undefined): number {
  const seconds = Number(value)
  return value && seconds > 0 ? seconds * 1000 : DEFAULT_PROGRESS_INTERVAL_MS
}

/** `--pull-request-body FILE`: the result's pull-request body, when the run committed. */
function writePullRequestBody(
  response: CodeAgentOutput,
  path: string,
  dryRun: boolean,
  logger: Logger
): void {
  // A dry run's result says what the pull request would be; with no commit there is none to open.
  if (dryRun && response.success) {
    logger.info(`Dry run: no pull request to open, ${path} not written`)
    return
  }
  if (!response.pull_request) {
    logger.info(`No pull request to open: ${path} not written`)
    return
  }
  writeOutputFile(path, response.pull_request.body, 'pull-request-body')
  logger.info(`Pull-request body written to ${path}`)
}
