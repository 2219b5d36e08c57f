import { dirname, join, resolve } from 'node:path'
import { cancelOnSignals, runnerFacts, type RunListener } from '../run/index.js'
import {
  ConfigError,
  parseRunConfig,
  settingName,
  type RunConfig,
  type RunConfigInput
} from '../config.js'
import {
  InvalidInputError,
  SecurityViolationError,
  toAgentError,
  type AgentError,
  type CodeAgentOutput
} from '../contract/index.js'
import { runMasker } from '../engine/index.js'
import { runMode } from '../modes/index.js'
import { distrustCheckout } from '../sandbox/index.js'
import {
  COMMAND_SETTINGS,
  readReplayFile,
  REPLAYED_SETTINGS,
  ReplayJudge,
  replayPath,
  replayWorkspace,
  startReplyServer,
  treeIn,
  type Replay
} from '../replay/index.js'
import { UsageError, type CliInvocation } from './args.js'
import type { CliProgress } from './progress.js'

export interface ReplayIo {
  say(line: string): void
  printJson(value: unknown): void
  progress(config: RunConfig): CliProgress
}

/** Settings a replay sets itself: the endpoint, the input, no push, nothing posted. */
const SET_BY_REPLAY = [
  'baseUrl',
  'modelHeaders',
  'apiKey',
  'githubToken',
  'issue',
  'issueNumber',
  'fixPlan',
  'triageResult',
  'agentInput',
  'taskFile',
  'codingTask',
  'followUp',
  'resume',
  'artifactRunId',
  'push'
] as const

/**
 * `patchsmith replay FILE`: the recorded run again, offline, on a fresh checkout of its base
 * commit, its model calls answered from the recording over loopback HTTP through the same model
 * client, its validation rerun in the sandbox under the user's own settings. Ends with the same
 * tree (exit 0), or names the first step where it diverged (exit 1). A recording that asks for
 * what only the user's settings may give is refused before anything runs.
 */
export async function replayCommand(parsed: CliInvocation, io: ReplayIo): Promise<number> {
  if (!parsed.target) throw new UsageError('replay needs the recording: patchsmith replay FILE.')
  refuseOwnFlags(parsed.settings)
  // The user's own flags first: a bad one is a usage error (exit 2), the recording's are refused.
  parseRunConfig(parsed.settings)
  refuseOverwrite(parsed.settings.outputPath, resolve(parsed.target))
  let replay: Replay
  let config: RunConfig
  try {
    replay = readReplayFile(resolve(parsed.target))
    config = recordedConfig(parsed.settings, replay)
    assertCommandsTrusted(config, replay)
  } catch (error) {
    return refused(toAgentError(error), io, parsed.json)
  }
  const source = resolve(parsed.settings.repo ?? '.')
  // The run works on a clone elsewhere: the source's committed programs never run on the host.
  distrustCheckout(source)
  let workspace
  try {
    workspace = await replayWorkspace(source, replay.base_commit)
  } catch (error) {
    return refused(toAgentError(error), io, parsed.json)
  }
  const facts = runnerFacts({ ...process.env, GITHUB_EVENT_PATH: undefined })
  const cancellation = cancelOnSignals()
  const masker = runMasker(config, facts.vars)
  const judge = new ReplayJudge(replay, (text) => masker.mask(text))
  const server = await startReplyServer(judge)
  try {
    config = parseRunConfig(replaySettings(parsed.settings, replay, server.url, workspace.dir))
    const progress = io.progress(config)
    const listener: RunListener = {
      phase: progress.phase.bind(progress),
      command: judge.commandStart(progress.command.bind(progress)),
      ownsIssueComment: progress.ownsIssueComment
    }
    io.say(
      `patchsmith replay: ${replay.exchanges.length} recorded model call(s) on base ${replay.base_commit}, in ${workspace.dir}`
    )
    const run = await runMode('run', config, {
      ...facts,
      logger: progress.logger,
      progress: listener,
      cancel: cancellation.signal,
      masker,
      unpushedOnOwnBranch: true
    })
    progress.stop()
    const outcome = outcomeOf(run.response, workspace.treeOf)
    const sourceTrees = new Map<string, string | undefined>()
    for (const commit of replay.outcome.commits)
      sourceTrees.set(commit.sha, await treeIn(source, commit.sha))
    judge.finish(outcome, (sha) => sourceTrees.get(sha))
    return verdict(judge, { ...outcome, resultFile: run.outputPath }, io, parsed.json)
  } catch (error) {
    return refused(toAgentError(error), io, parsed.json)
  } finally {
    await server.close()
    workspace.dispose()
    cancellation.dispose()
  }
}

/** The replay writes a recording of its own beside its result: never over the one it replays. */
function refuseOverwrite(outputPath: string | undefined, target: string): void {
  if (!outputPath) return
  const own = resolve(outputPath)
  if ([target, join(target, 'replay.json')].includes(replayPath(own, dirname(own))))
    throw new UsageError(
      `--output ${outputPath} would write the replay's own recording over ${target}; give another --output.`
    )
}

/** The recording's settings over the user's; one the schema refuses makes the file refused. */
function recordedConfig(own: RunConfigInput, replay: Replay): RunConfig {
  try {
    return parseRunConfig(replaySettings(own, replay, 'http://127.0.0.1/v1', '.'))
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    throw new InvalidInputError(
      `The replay file's settings are refused: ${error.message} [rule not-a-replay].`,
      { field: `settings.${error.setting ?? ''}`, rule: 'not-a-replay' }
    )
  }
}

function refuseOwnFlags(settings: RunConfigInput): void {
  const own = [...SET_BY_REPLAY, ...REPLAYED_SETTINGS].filter(
    (key) => (settings as Record<string, unknown>)[key] !== undefined
  )
  if (own.length === 0) return
  const flag = `--${settingName(own[0]!)}`
  throw new UsageError(
    (REPLAYED_SETTINGS as readonly string[]).includes(own[0]!)
      ? `replay takes ${flag} from the recording.`
      : `replay sets ${flag} itself (the recorded replies, its input, no push).`
  )
}

/**
 * The run's settings: the user's own (commands, sandbox, paths, budgets), the recording's
 * request-shaping ones, and what a replay always is: the recorded input, the loopback endpoint,
 * no push, nothing posted or uploaded.
 */
function replaySettings(
  own: RunConfigInput,
  replay: Replay,
  baseUrl: string,
  repo: string
): RunConfigInput {
  const { issue, triage_result, fix_plan, repository_snapshot } = replay.input
  const input = fix_plan
    ? {
        agentInput: JSON.stringify({
          issue,
          triage_result: triage_result ?? {},
          fix_plan,
          ...(repository_snapshot ? { repository_snapshot } : {})
        })
      }
    : {
        issue: JSON.stringify(issue),
        ...(triage_result ? { triageResult: JSON.stringify(triage_result) } : {})
      }
  return {
    ...own,
    ...(replay.settings as RunConfigInput),
    ...input,
    repo,
    baseUrl,
    apiKey: undefined,
    githubToken: undefined,
    push: false,
    progressComment: false,
    commentOnFailure: false,
    uploadArtifact: false
  }
}

/** The commands the recording ran run again only when the user's settings name them, as they were. */
function assertCommandsTrusted(config: RunConfig, replay: Replay): void {
  for (const key of COMMAND_SETTINGS) {
    const recorded = JSON.stringify(replay.commands[key] ?? defaultOf(key))
    const own = JSON.stringify(config[key] ?? defaultOf(key))
    if (recorded === own) continue
    throw new SecurityViolationError(
      `The recording ran with ${settingName(key)} ${recorded}; your settings give ${own}. A replay runs only the commands your own settings trust: pass the same (--${settingName(key)}), after reading them [rule replay-command].`,
      { field: settingName(key), recorded: replay.commands[key], rule: 'replay-command' }
    )
  }
}

function defaultOf(key: (typeof COMMAND_SETTINGS)[number]): unknown {
  if (key === 'allowPlanCommands') return false
  return key === 'validationCommands' || key === 'setupCommands' ? [] : null
}

function outcomeOf(response: CodeAgentOutput, treeOf: (sha: string) => string | undefined) {
  return {
    success: response.success,
    ...(response.error
      ? { errorCode: response.error.code, errorMessage: response.error.message }
      : {}),
    commits: (response.data ?? [])
      .filter((commit) => commit.sha)
      .map((commit) => ({ sha: commit.sha, tree: treeOf(commit.sha) ?? '' }))
  }
}

function verdict(
  judge: ReplayJudge,
  outcome: ReturnType<typeof outcomeOf> & { resultFile: string },
  io: ReplayIo,
  json: boolean
): number {
  const [first, ...then] = judge.divergences
  const last = outcome.commits.at(-1)
  if (!first) {
    const end = last
      ? `the same tree ${last.tree} (commit ${last.sha})`
      : `the same outcome (${outcome.success ? 'nothing committed' : outcome.errorCode})`
    io.say(
      `patchsmith replay: same as recorded: ${judge.modelCalls} model call(s) and ${judge.commandCount} command(s) as recorded, ${end}; result: ${outcome.resultFile}`
    )
  } else {
    io.say(`patchsmith replay: diverged at ${first.message}`)
    for (const next of then.slice(0, 4)) io.say(`  then: ${next.message}`)
  }
  if (json) io.printJson({ same: !first, divergences: judge.divergences, ...outcome })
  return first ? 1 : 0
}

function refused(error: AgentError, io: ReplayIo, json: boolean): number {
  io.say(`patchsmith replay: refused: ${error.code}: ${error.message}`)
  if (json) io.printJson({ success: false, error })
  return 1
}
