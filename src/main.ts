import { lstatSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import {
  cancelOnSignals,
  runnerFacts,
  runUrl,
  scratchFolder,
  type Logger,
  type RunnerFacts
} from './run/index.js'
import { runMode } from './modes/index.js'
import {
  ConfigError,
  parseRunConfig,
  ACTION_INPUTS,
  GROUPED_SETTINGS,
  SETTING_KEYS,
  SETTING_KINDS,
  settingName,
  type RunConfigInput
} from './config.js'
import {
  actionOutputs,
  collectArtifactFiles,
  summaryMarkdown,
  uploadArtifact,
  writeOutputFile,
  actionsIo,
  placeOf,
  progressComment,
  type ArtifactEntry,
  type ProgressComment
} from './report/index.js'
import { runMasker } from './engine/index.js'
import { PatchsmithError, toAgentError, type CodeAgentOutput } from './contract/index.js'
import { inputEntries, withArtifactInputs } from './inputs/artifact-inputs.js'
import { namedIssueNumber } from './inputs/index.js'

const SETTING_BY_NAME = new Map(SETTING_KEYS.map((key) => [settingName(key), key]))

const actionLogger: Logger = {
  info: actionsIo.info,
  warn: actionsIo.warning,
  debug: actionsIo.debug
}

/** The action: inputs → RunConfig → its mode's run → outputs, job summary, artifact, exit code. */
export async function run(): Promise<void> {
  // A cancelled job (SIGINT, then SIGTERM) rolls back and still reports, then exits 130/143.
  const cancellation = cancelOnSignals()
  let progress: ProgressComment | undefined
  try {
    // A rerun (artifact-run-id) takes the inputs it was not given from that run's artifact.
    const config = await withArtifactInputs(
      parseRunConfig(readInputs()),
      process.env.GITHUB_REPOSITORY
    )
    const facts = runnerFacts(process.env)
    // The run's one masker, made here: the progress comment masks with it. The engine posts
    // the comment once the starter's permission is checked (RunListener.start).
    const masker = runMasker(config, facts.vars)
    progress = startProgress(config, facts, (text) => masker.mask(text))
    const env = {
      ...facts,
      logger: actionLogger,
      onSecret: actionsIo.setSecret,
      cancel: cancellation.signal,
      progress,
      masker
    }
    const { response, outputPath, logDir, branch, issueNumber, mask, replayFile } = await runMode(
      'run',
      config,
      env
    )
    await progress?.finish(response, branch)
    for (const [name, value] of Object.entries(pullRequestFile(response, outputPath, facts.vars)))
      actionsIo.setOutput(name, value)
    const pushed = config.push && !config.dryRun
    for (const [name, value] of Object.entries(
      actionOutputs(response, outputPath, branch, { pushed })
    ))
      actionsIo.setOutput(name, value)
    const summary = summaryMarkdown(response, { issueNumber, pushed, base: config.baseBranch })
    await writeSummary(summary)
    if (config.uploadArtifact) {
      await actionsIo.group('Artifact', () =>
        uploadReport(
          config.artifactName,
          [
            { path: outputPath, name: 'result.json' },
            { name: 'summary.md', content: summary },
            { path: logDir, name: 'logs' },
            ...(replayFile ? [{ path: replayFile, name: 'replay.json' }] : []),
            ...inputEntries(config, process.env.GITHUB_EVENT_PATH)
          ],
          mask
        )
      )
    }
    if (response.outcome === 'budget-exhausted')
      actionsIo.warning(response.rolling_budget?.refused?.message ?? 'The rolling budget is spent.')
    // A plan held for approval is no failure: the step succeeds (outputs.outcome says why).
    else if (!response.success && !response.awaiting_approval)
      actionsIo.setFailed(
        `${response.error?.code}: ${response.error?.message}`,
        placeOf(response.error?.details)
      )
  } catch (error) {
    const known =
      error instanceof ConfigError
        ? { code: 'INVALID_INPUT' as const, message: error.message, recoverable: false }
        : toAgentError(error)
    const { code, message } = known
    if (code === 'INTERNAL_ERROR' && error instanceof Error && error.stack)
      await actionsIo.group('Stack trace', async () => actionsIo.info(error.stack!))
    const failed = { success: false, error: known } as const
    await progress?.finish(failed)
    for (const [name, value] of Object.entries({
      ...actionOutputs(failed, '', ''),
      ...pullRequestFile(failed, '')
    }))
      actionsIo.setOutput(name, value)
    await writeSummary(summaryMarkdown(failed))
    actionsIo.setFailed(`${code}: ${message}`, placeOf(details(error)))
  } finally {
    process.exitCode = cancellation.exitCode() ?? process.exitCode
    cancellation.dispose()
  }
}

/**
 * The progress comment, when a person asked for the run from an issue, a comment or a review,
 * or ran the workflow by hand for an issue.
 */
function startProgress(
  config: ReturnType<typeof parseRunConfig>,
  facts: RunnerFacts,
  mask: (text: string) => string
): ProgressComment | undefined {
  let event: unknown
  try {
    event = facts.eventPath ? JSON.parse(readFileSync(facts.eventPath, 'utf8')) : undefined
  } catch {
    event = undefined
  }
  return progressComment({
    enabled: config.progressComment,
    dryRun: config.dryRun,
    token: config.githubToken ?? '',
    repository: facts.repository,
    eventName: process.env.GITHUB_EVENT_NAME,
    event,
    inputIssue: namedIssueNumber({ ...config, baseDir: facts.cwd }),
    runId: facts.runId,
    runAttempt: process.env.GITHUB_RUN_ATTEMPT,
    runUrl: runUrl(facts),
    client: { apiUrl: facts.apiUrl, warn: actionsIo.warning },
    mask,
    warn: actionsIo.warning
  })
}

/**
 * The result's pull request: its title, and its body as a file beside the result file (written
 * as the result is: never through a link); beside a result that is a device or fifo
 * (`/dev/null`), in the run's scratch folder.
 */
function pullRequestFile(
  response: CodeAgentOutput,
  outputPath: string,
  vars: RunnerFacts['vars'] = {}
): Record<string, string> {
  const text = response.pull_request
  if (!text) return { 'pull-request-title': '', 'pull-request-body-path': '' }
  const besideResult = lstatSync(outputPath, { throwIfNoEntry: false })?.isFile() !== false
  const folder = besideResult ? dirname(outputPath) : scratchFolder(vars)
  const path = join(folder, 'pull-request.md')
  writeOutputFile(path, text.body, 'output-path')
  return { 'pull-request-title': text.title, 'pull-request-body-path': path }
}

function readInputs(): RunConfigInput {
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  const input: Record<string, unknown> = {}
  for (const name of ACTION_INPUTS) {
    const key = SETTING_BY_NAME.get(name)!
    const value = actionsIo.getInput(name)
    if (value === '') continue
    input[key] = SETTING_KINDS[key] === 'list' ? value.split('\n') : value
  }
  // A grouped setting given as an input of its own (`output-path:`, an input before it moved
  // into `settings`): GitHub warns that action.yml does not declare it, and it still counts.
  for (const name of Object.keys(GROUPED_SETTINGS)) {
    const key = SETTING_BY_NAME.get(name)
    const value = actionsIo.getInput(name)
    if (!key || value === '' || key in input) continue
    actionsIo.warning(`"${name}" is a settings line now: write "${name}: …" in the settings input.`)
    input[key] = SETTING_KINDS[key] === 'list' ? value.split('\n') : value
  }
  input.repo = resolve(workspace, (input.repo as string | undefined) ?? '.')
  return input as RunConfigInput
}

function details(error: unknown): unknown {
  return error instanceof PatchsmithError ? error.details : undefined
}

async function writeSummary(markdown: string): Promise<void> {
  try {
    await actionsIo.appendSummary(markdown)
  } catch (error) {
    actionsIo.warning(`Could not write the job summary: ${(error as Error).message}`)
  }
}

/** The artifact: result file, job summary and attempt logs, masked; skipped off the runner. */
async function uploadReport(
  name: string,
  entries: ArtifactEntry[],
  mask: (text: string) => string
): Promise<void> {
  if (!process.env.ACTIONS_RUNTIME_TOKEN) {
    const paths = entries.flatMap((entry) => ('path' in entry ? [entry.path] : []))
    actionsIo.info(
      `Not on a GitHub runner with artifact access: no artifact; see ${paths.join(', ')}`
    )
    return
  }
  const files = collectArtifactFiles(entries, { mask })
  const outcome = await uploadArtifact(name, files)
  if (outcome.uploaded)
    actionsIo.info(`Uploaded the artifact ${name} (${files.files.length} files)`)
  else actionsIo.warning(`Could not upload the artifact ${name}: ${outcome.reason}`)
}
