import { tmpdir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import type { RunConfig } from '../config.js'
import {
  InvalidInputError,
  toAgentError,
  type CodeAgentInput,
  type CodeAgentOutput,
  type StyleConfig
} from '../contract/index.js'
import type { ChangeBranch, Git } from '../git/index.js'
import { ModelClient } from '../model/index.js'
import { writeResultFile } from '../report/index.js'
import { SecretMasker, scrubbedEnv } from '../validation/index.js'
import { attemptChange, type GreenChange } from './attempts.js'
import { commitAndPush, reportFailureOnIssue } from './finish.js'
import type { Logger } from './logger.js'
import { PhaseClock } from './phase-clock.js'
import { loadAndGuard } from './prepare.js'

export interface AgentEnvironment {
  logger: Logger
  /** The triggering event's payload (GITHUB_EVENT_PATH), for the default issue. */
  eventPath?: string
  /** `owner/repo`, for the failure comment and label. */
  repository?: string
  /** Called with every value that must never appear in output (the runner's mask). */
  onSecret?: (value: string) => void
}

export interface AgentRun {
  response: CodeAgentOutput
  outputPath: string
  branch: string
  issueNumber?: number
}

const DEFAULT_STYLE: StyleConfig = {
  indent_style: 'space',
  indent_size: 2,
  end_of_line: 'lf',
  insert_final_newline: true
}
const OPENAI_HOST = /^https:\/\/api\.openai\.com\b/

/**
 * One run, in one direction: load → guard → draft → apply → validate (→ repair) → commit →
 * push → report. Any failure rolls the repository back and is reported with its error code.
 */
export async function runAgent(config: RunConfig, env: AgentEnvironment): Promise<AgentRun> {
  const { logger } = env
  const clock = new PhaseClock()
  const masker = new SecretMasker()
  for (const secret of [config.apiKey, config.githubToken]) {
    if (secret) {
      masker.add(secret)
      env.onSecret?.(secret)
    }
  }
  const repoDir = resolve(config.repo)
  const outputPath = config.outputPath ? resolve(config.outputPath) : defaultOutputPath()
  let input: CodeAgentInput | undefined
  let branch: ChangeBranch | undefined
  let git: Git | undefined
  let model: ModelClient | undefined
  let green: GreenChange | undefined
  let response: CodeAgentOutput
  try {
    const prepared = await loadAndGuard(config, repoDir, env.eventPath, clock, logger, (loaded) => {
      input = loaded
    })
    ;({ git, branch } = prepared)
    model = new ModelClient({
      baseUrl: config.baseUrl,
      apiKey: modelKey(config),
      model: config.model,
      timeoutMs: config.modelTimeout * 1000
    })
    await prepared.branch.create()
    green = await attemptChange({
      input: prepared.input,
      format: config.editFormat,
      style: prepared.input.repository_snapshot?.style_config ?? DEFAULT_STYLE,
      base: prepared.base,
      commands: prepared.commands,
      maxRepairs: config.maxRepairs,
      concurrency: config.concurrency,
      runner: {
        cwd: repoDir,
        timeoutMs: config.commandTimeout * 1000,
        outputLimit: config.outputLimit,
        masker,
        env: scrubbedEnv()
      },
      model,
      branch: prepared.branch,
      policy: prepared.policy,
      clock,
      logger
    })
    const commit = await commitAndPush(
      {
        config,
        input: prepared.input,
        git,
        branch,
        model,
        masker,
        clock,
        logger,
        onSecret: env.onSecret
      },
      green
    )
    response = { success: true, data: [commit] }
  } catch (error) {
    const agentError = toAgentError(error)
    logger.warn(`${agentError.code}: ${agentError.message}`)
    if (branch) {
      const problems = await branch.rollback()
      problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
      if (problems.length > 0) {
        agentError.details = { ...agentError.details, rollback_problems: problems }
      }
    }
    response = { success: false, error: agentError }
    await reportFailureOnIssue(config, env.repository, input, response, masker, logger)
  }
  response.metrics = {
    attempts: green?.attempts ?? attemptsOf(response),
    model_calls: model?.usage.calls ?? 0,
    prompt_tokens: model?.usage.promptTokens ?? 0,
    completion_tokens: model?.usage.completionTokens ?? 0,
    git_processes: git?.processCount ?? 0,
    phase_ms: clock.totals,
    duration_ms: clock.elapsed(),
    ...(green ? { placements: green.placements } : {})
  }
  response = JSON.parse(masker.mask(JSON.stringify(response))) as CodeAgentOutput
  writeResultFile(outputPath, response)
  return {
    response,
    outputPath,
    branch: input?.fix_plan.branch_name ?? '',
    issueNumber: input?.issue.number
  }
}

function modelKey(config: RunConfig): string {
  if (config.apiKey) return config.apiKey
  if (OPENAI_HOST.test(config.baseUrl)) {
    throw new InvalidInputError(
      'No API key: set the "api-key" input (CLI: --api-key or OPENAI_API_KEY).',
      { field: 'api-key' }
    )
  }
  return 'none'
}

function attemptsOf(response: CodeAgentOutput): number {
  const attempts = response.error?.details?.attempts
  return typeof attempts === 'number' ? attempts : 0
}

function defaultOutputPath(): string {
  const temp = process.env.RUNNER_TEMP
  const dir = temp && isAbsolute(temp) ? temp : tmpdir()
  return join(dir, 'patchsmith', 'result.json')
}
