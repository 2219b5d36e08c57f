import { tmpdir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import type { RunConfig } from '../config.js'
import {
  InvalidInputError,
  toAgentError,
  type CodeAgentInput,
  type CodeAgentOutput,
  type Commit,
  type StyleConfig
} from '../contract/index.js'
import {
  ChangeBranch,
  Git,
  WorktreeFiles,
  acceptSubject,
  commitMessage,
  commitScope,
  commitType,
  pushAuth,
  templateSubject
} from '../git/index.js'
import { loadAgentInput } from '../inputs/index.js'
import { ModelClient, commitMessages } from '../model/index.js'
import { PathPolicy, assertCommandsAllowed } from '../policy/index.js'
import { failureComment, postFailureFeedback, writeResultFile } from '../report/index.js'
import { SecretMasker, scrubbedEnv } from '../validation/index.js'
import { attemptChange, type GreenChange } from './attempts.js'
import type { Logger } from './logger.js'
import { PhaseClock } from './phase-clock.js'

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
  // Input and output files are named as the user sees them: from the current directory.
  const outputPath = config.outputPath ? resolve(config.outputPath) : defaultOutputPath()
  let input: CodeAgentInput | undefined
  let branch: ChangeBranch | undefined
  let git: Git | undefined
  let model: ModelClient | undefined
  let green: GreenChange | undefined
  let response: CodeAgentOutput
  try {
    input = await clock.time('load', () =>
      loadAgentInput({ ...config, eventPath: env.eventPath, baseDir: process.cwd() })
    )
    const plan = input.fix_plan
    logger.info(
      `Issue #${input.issue.number}: ${plan.file_changes.length} planned file change(s) on ${plan.branch_name}`
    )
    const policy = new PathPolicy({ blockedGlobs: config.blockedPaths })
    policy.assertAllowed(
      plan.file_changes.map((change) => change.path),
      'plan'
    )
    const commands = assertCommandsAllowed(
      plan.validation_commands,
      config.validationCommands,
      config.allowPlanCommands
    )
    const files = new WorktreeFiles(repoDir)
    const base = readPlannedFiles(files, input)
    git = await Git.open(repoDir)
    branch = await ChangeBranch.prepare(git, {
      branch: plan.branch_name,
      baseBranch: config.baseBranch
    })
    model = new ModelClient({
      baseUrl: config.baseUrl,
      apiKey: modelKey(config),
      model: config.model,
      timeoutMs: config.modelTimeout * 1000
    })
    await branch.create()
    green = await attemptChange({
      input,
      style: input.repository_snapshot?.style_config ?? DEFAULT_STYLE,
      base,
      commands,
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
      branch,
      policy,
      clock,
      logger
    })
    const ready = green
    const message = await clock.time('commit', () => writeMessage(model!, input!, ready, logger))
    let sha = ''
    let patchId = ''
    if (config.dryRun) {
      logger.info('Dry run: validated, rolling back instead of committing')
      await branch.rollback()
    } else {
      sha = await clock.time('commit', () => branch!.commit(message, config.signoff))
      patchId = await clock.time('commit', () => git!.patchId(sha))
      logger.info(`Committed ${sha} on ${plan.branch_name}`)
      if (config.push) {
        const auth = await pushAuth(git, 'origin', config.githubToken)
        if (auth) {
          masker.add(auth.secret)
          env.onSecret?.(auth.secret)
        }
        await clock.time('push', () => branch!.push(auth?.env))
        logger.info(`Pushed ${plan.branch_name} to origin`)
      }
    }
    const commit: Commit = {
      issue_number: input.issue.number,
      message,
      diff: green.diff,
      files_changed: plan.file_changes.map((change) => change.path),
      timestamp: new Date().toISOString(),
      validation_results: green.results.map(({ timedOut: _timedOut, ...result }) => result),
      sha,
      branch: plan.branch_name,
      patch_id: patchId
    }
    response = { success: true, data: [commit] }
  } catch (error) {
    const agentError = toAgentError(error)
    logger.warn(`${agentError.code}: ${agentError.message}`)
    if (branch) {
      const problems = await branch.rollback()
      problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
      if (problems.length > 0)
        agentError.details = { ...agentError.details, rollback_problems: problems }
    }
    response = { success: false, error: agentError }
    await reportFailureOnIssue(config, env, input, response, masker)
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

function readPlannedFiles(files: WorktreeFiles, input: CodeAgentInput): Map<string, string | null> {
  const contents = new Map<string, string | null>()
  input.fix_plan.file_changes.forEach((change, index) => {
    const content = files.read(change.path)
    const field = `fix_plan.file_changes[${index}].path`
    if (change.operation === 'CREATE' && content !== null) {
      throw new InvalidInputError(
        `Invalid ${field}: ${change.path} already exists, so it cannot be created.`,
        { field }
      )
    }
    if (change.operation !== 'CREATE' && content === null) {
      throw new InvalidInputError(
        `Invalid ${field}: ${change.path} does not exist, so it cannot be ${change.operation === 'DELETE' ? 'deleted' : 'modified'}.`,
        { field }
      )
    }
    contents.set(change.path, content)
  })
  return contents
}

function modelKey(config: RunConfig): string {
  if (config.apiKey) return config.apiKey
  if (OPENAI_HOST.test(config.baseUrl)) {
    throw new InvalidInputError(
      'No API key: set the "api-key" input (CLI: --api-key or OPENAI_API_KEY).',
      {
        field: 'api-key'
      }
    )
  }
  return 'none'
}

async function writeMessage(
  model: ModelClient,
  input: CodeAgentInput,
  green: GreenChange,
  logger: Logger
): Promise<string> {
  const paths = green.edits.map((edit) => edit.path)
  const type = commitType(input.triage_result, input.fix_plan.branch_name)
  const scope = commitScope(paths)
  let subject: string | undefined
  try {
    const reply = await model.complete(
      commitMessages({ issue: input.issue, type, scope, files: paths, diff: green.diff })
    )
    subject = acceptSubject(reply.text)
    if (!subject)
      logger.warn(
        'The generated commit subject was not a valid Conventional Commit; using the template'
      )
  } catch (error) {
    logger.warn(
      `Commit message generation failed (${(error as Error).message}); using the template`
    )
  }
  return commitMessage(
    subject ?? templateSubject(type, scope, input.issue.title),
    input.issue.number
  )
}

async function reportFailureOnIssue(
  config: RunConfig,
  env: AgentEnvironment,
  input: CodeAgentInput | undefined,
  response: CodeAgentOutput,
  masker: SecretMasker
): Promise<void> {
  if (
    !config.commentOnFailure ||
    !config.githubToken ||
    !env.repository ||
    !input ||
    !response.error
  )
    return
  const problems = await postFailureFeedback(
    {
      token: config.githubToken,
      repository: env.repository,
      issueNumber: input.issue.number,
      label: config.failureLabel
    },
    masker.mask(failureComment(response.error))
  )
  problems.forEach((problem) => env.logger.warn(`Issue feedback: ${problem}`))
}

function attemptsOf(response: CodeAgentOutput): number {
  const attempts = response.error?.details?.attempts
  return typeof attempts === 'number' ? attempts : 0
}

function defaultOutputPath(): string {
  const dir =
    process.env.RUNNER_TEMP && isAbsolute(process.env.RUNNER_TEMP)
      ? process.env.RUNNER_TEMP
      : tmpdir()
  return join(dir, 'patchsmith', 'result.json')
}
