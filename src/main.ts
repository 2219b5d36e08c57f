import * as core from '@actions/core'
import { DefaultArtifactClient } from '@actions/artifact'
import { dirname, resolve } from 'node:path'
import { runAgent, type Logger } from './agent/index.js'
import {
  ConfigError,
  parseRunConfig,
  SETTING_KEYS,
  SETTING_KINDS,
  settingName,
  type RunConfigInput
} from './config.js'
import { actionOutputs, summaryMarkdown } from './report/index.js'

const actionLogger: Logger = { info: core.info, warn: core.warning, debug: core.debug }

/** The action: inputs → RunConfig → runAgent → outputs, job summary, artifact, exit code. */
export async function run(): Promise<void> {
  try {
    const config = parseRunConfig(readInputs())
    const { response, outputPath, branch, issueNumber } = await runAgent(config, {
      logger: actionLogger,
      eventPath: process.env.GITHUB_EVENT_PATH,
      repository: process.env.GITHUB_REPOSITORY,
      onSecret: core.setSecret
    })
    for (const [name, value] of Object.entries(actionOutputs(response, outputPath, branch)))
      core.setOutput(name, value)
    await writeSummary(summaryMarkdown(response, issueNumber))
    if (config.uploadArtifact) await uploadResult(config.artifactName, outputPath)
    if (!response.success) core.setFailed(`${response.error?.code}: ${response.error?.message}`)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const code = error instanceof ConfigError ? 'INVALID_INPUT' : 'MODEL_ERROR'
    for (const [name, value] of Object.entries({
      success: 'false',
      commits: '[]',
      'output-path': '',
      branch: '',
      sha: '',
      'error-code': code,
      'files-changed': ''
    }))
      core.setOutput(name, value)
    await writeSummary(
      `## Patchsmith: failed\n\n| | |\n|---|---|\n| Error | \`${code}\` |\n| Message | ${message} |\n`
    )
    core.setFailed(`${code}: ${message}`)
  }
}

function readInputs(): RunConfigInput {
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  const input: Record<string, unknown> = {}
  for (const key of SETTING_KEYS) {
    const value = core.getInput(settingName(key))
    if (value === '') continue
    input[key] = SETTING_KINDS[key] === 'list' ? value.split('\n') : value
  }
  input.repo = resolve(workspace, (input.repo as string | undefined) ?? '.')
  return input as RunConfigInput
}

async function writeSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return
  try {
    await core.summary.addRaw(markdown, true).write()
  } catch (error) {
    core.warning(`Could not write the job summary: ${(error as Error).message}`)
  }
}

async function uploadResult(name: string, path: string): Promise<void> {
  if (!process.env.ACTIONS_RUNTIME_TOKEN) {
    core.info('Not on a GitHub runner with artifact access: the result stays at ' + path)
    return
  }
  try {
    await new DefaultArtifactClient().uploadArtifact(name, [path], dirname(path), {
      retentionDays: 30
    })
  } catch (error) {
    core.warning(`Could not upload the result artifact: ${(error as Error).message}`)
  }
}
