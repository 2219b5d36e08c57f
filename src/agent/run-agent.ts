import type { RunConfig } from '../config.js'
import { toAgentError, type CodeAgentInput, type CodeAgentOutput } from '../contract/index.js'
import type { ChangeBranch, Git, RunLock } from '../git/index.js'
import { DEFAULT_STYLE, DraftPrompter, modelMetrics, type ModelClient } from '../model/index.js'
import { resolveEditFormat } from '../edits/index.js'
import { generatedPlan, minimalFix } from '../planning/index.js'
import { AttemptLog, writeResultFile } from '../report/index.js'
import { pipelineSteps } from '../validation/index.js'
import { validationEnv, type Sandbox } from '../sandbox/index.js'
import { attemptChange, type GreenChange } from './attempts.js'
import { AttemptProgress, readResumePoint, resumePath } from './last-attempt.js'
import { commitChange, reportFailureOnIssue } from './finish.js'
import { loadAndGuard } from './prepare.js'
import {
  assertStarterAllowed,
  modelClient,
  modelKey,
  withinTimeLimit,
  type AgentEnvironment,
  type AgentRun
} from './session.js'
import { runTasks } from './run-tasks.js'
import { claimRepository, jailHooks, openSandbox, startRun } from './run-setup.js'

/**
 * One run, in one direction: load → guard → draft → apply → validate (→ repair) → commit →
 * push → report. Any failure rolls the repository back and is reported with its error code.
 */
export async function runAgent(config: RunConfig, env: AgentEnvironment): Promise<AgentRun> {
  // A task file runs its tasks one by one through the same steps (run-tasks.ts).
  if (config.taskFile) return runTasks(config, env)
  const setup = startRun(config, env)
  const { clock, budget, masker, logger, repoDir, outputPath, logDir } = setup
  let sandbox: Sandbox | undefined
  let lock: RunLock | undefined
  let input: CodeAgentInput | undefined
  let branch: ChangeBranch | undefined
  let git: Git | undefined
  let model: ModelClient | undefined
  let prompter: DraftPrompter | undefined
  let green: GreenChange | undefined
  let response: CodeAgentOutput
  const progress = new AttemptProgress()
  const secret = (value: string) => {
    masker.add(value)
    env.onSecret?.(value)
  }
  // Made on first use: a plan-less run or an adapter asks the model while loading its input.
  const modelOnce = () => (model ??= modelClient(config, budget, logger, secret))
  try {
    // No key for a host that needs one: refused before any network call.
    modelKey(config)
    await assertStarterAllowed(config, env)
    sandbox = await openSandbox(config, setup)
    // Before anything is read or changed: one run per work tree, and a dead run's work undone.
    lock = await claimRepository(repoDir, config, logger)
    const prepared = await loadAndGuard(
      config,
      repoDir,
      env,
      clock,
      logger,
      (loaded) => {
        input = loaded
      },
      { hooks: env.hooks, model: modelOnce }
    )
    ;({ git, branch } = prepared)
    jailHooks(git, config, sandbox, env.vars)
    model = modelOnce()
    const style = prepared.input.repository_snapshot?.style_config ?? DEFAULT_STYLE
    prompter = new DraftPrompter({
      repoDir,
      maxTokens: config.maxTokensPerDraft,
      style,
      budget
    })
    const resumeFrom = resumePath(config.resume, outputPath)
    const resume = resumeFrom ? readResumePoint(resumeFrom, prepared.input) : undefined
    await prepared.branch.create()
    green = await attemptChange({
      input: prepared.input,
      format: resolveEditFormat(config.editFormat, config.model),
      style,
      base: prepared.base,
      steps: pipelineSteps(config, prepared.commands),
      retryFlaky: config.retryFlaky,
      keepPreexisting: config.onPreexistingFailure === 'commit',
      log: new AttemptLog(logDir, (text) => masker.mask(text)),
      maxRepairs: config.maxRepairs,
      concurrency: config.concurrency,
      drafter: env.hooks?.drafter,
      runner: {
        cwd: repoDir,
        // Read when each validation round starts: no command may run past the time-limit.
        get timeoutMs() {
          return Math.max(1_000, Math.min(config.commandTimeout * 1000, budget.remainingMs()))
        },
        outputLimit: config.outputLimit,
        masker,
        env: validationEnv(env.vars, config.validationEnv),
        sandbox,
        signal: budget.signal
      },
      model,
      prompter,
      budget,
      progress,
      resume,
      branch: prepared.branch,
      policy: prepared.policy,
      clock,
      logger
    })
    const commits = await commitChange(
      {
        config,
        input: prepared.input,
        git,
        branch,
        model,
        masker,
        clock,
        logger,
        onSecret: env.onSecret,
        rewriteMessage: env.hooks?.commitMessage,
        budget
      },
      green
    )
    response = { success: true, data: commits }
  } catch (error) {
    const agentError = withinTimeLimit(toAgentError(error), budget)
    logger.warn(`${agentError.code}: ${agentError.message}`)
    if (agentError.code === 'INTERNAL_ERROR' && error instanceof Error && error.stack)
      logger.warn(error.stack)
    if (branch) {
      const problems = await branch.rollback()
      problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
      if (problems.length > 0) {
        agentError.details = { ...agentError.details, rollback_problems: problems }
      }
    }
    const kept = progress.keep(agentError, input, branch?.baseCommit)
    if (kept) {
      agentError.details = { ...agentError.details, last_attempt: kept }
      logger.info(
        `The last attempt (${kept.attempt}, ${kept.validated ? 'validated' : 'not validated'}) is kept in the result as error.details.last_attempt, never committed; a rerun with resume: true repairs from it`
      )
    }
    response = { success: false, error: agentError }
    await reportFailureOnIssue(config, env, input, response, masker, logger)
  }
  response.metrics = {
    attempts: green?.attempts ?? attemptsOf(response),
    ...statsOf(green, response),
    ...modelMetrics(model, prompter, budget),
    git_processes: git?.processCount ?? 0,
    ...(sandbox ? { sandbox: sandbox.backend } : {}),
    phase_ms: clock.totals,
    duration_ms: clock.elapsed(),
    ...(green ? { placements: green.placements, minimal_fix: minimalFix(green.diff) } : {}),
    ...(generatedPlan(input) ? { plan_source: 'generated' } : {})
  }
  sandbox?.dispose()
  lock?.release()
  response = JSON.parse(masker.mask(JSON.stringify(response))) as CodeAgentOutput
  writeResultFile(outputPath, response)
  return {
    response,
    outputPath,
    logDir,
    branch: input?.fix_plan.branch_name ?? '',
    issueNumber: input?.issue.number
  }
}

/** Repairs, retries by reason and why the loop stopped, from the green change or the error. */
function statsOf(
  green: GreenChange | undefined,
  response: CodeAgentOutput
): Record<string, unknown> {
  const stats = (green?.stats ?? response.error?.details?.stats) as
    Record<string, unknown> | undefined
  if (!stats) return {}
  return { repairs: stats.repairs, retries: stats.retries, stop_reason: stats.stop_reason }
}

function attemptsOf(response: CodeAgentOutput): number {
  const attempts = response.error?.details?.attempts
  return typeof attempts === 'number' ? attempts : 0
}
