import { runUrl } from './environment.js'
import type { RunConfig } from '../config.js'
import type { CodeAgentInput, CodeAgentOutput } from '../contract/index.js'
import { AttemptFile, type ChangeBranch } from '../git/index.js'
import { EditorconfigRules } from '../editorconfig/index.js'
import { DEFAULT_STYLE } from '../model/index.js'
import { resolveEditFormat } from '../edits/index.js'
import {
  generatedPlan,
  minimalFix,
  planInstructionFiles,
  RepoInstructions
} from '../planning/index.js'
import { AttemptLog } from '../report/index.js'
import { pipelineSteps } from '../validation/index.js'
import { attemptChange, type AttemptStats, type GreenChange } from './attempts.js'
import { sandboxedCommands } from './commands.js'
import { commitChange, reportFailureOnIssue } from './finish.js'
import { AttemptProgress, resumePoint } from './last-attempt.js'
import { loadAndGuard } from './prepare.js'
import { RunSession } from './run-session.js'
import type { AgentEnvironment, AgentRun } from './session.js'
import { jailHooks } from './run-setup.js'

/**
 * One run, in one direction: load → guard → draft → apply → validate (→ repair) → commit →
 * push → report. Any failure rolls the repository back and is reported with its error code.
 */
export async function runAgent(config: RunConfig, env: AgentEnvironment): Promise<AgentRun> {
  const session = new RunSession(config, env)
  const { clock, budget, masker, logger, repoDir, outputPath, logDir } = session.setup
  const progress = new AttemptProgress()
  // The attempt as the run goes, beside the journal: `resume` after a SIGKILL starts from it.
  const kept = AttemptFile.for(repoDir)
  let input: CodeAgentInput | undefined
  let branch: ChangeBranch | undefined
  let green: GreenChange | undefined
  let stats: AttemptStats | undefined
  let instructions: RepoInstructions | undefined
  let response: CodeAgentOutput
  try {
    await session.open()
    const prepared = await loadAndGuard(
      config,
      repoDir,
      env,
      clock,
      logger,
      (loaded) => {
        input = loaded
      },
      { mode: env.mode, model: () => session.modelClient() }
    )
    ;({ branch } = prepared)
    const git = (session.git = prepared.git)
    jailHooks(git, config, session.sandbox, env.vars)
    const model = session.modelClient()
    const style = prepared.input.repository_snapshot?.style_config ?? DEFAULT_STYLE
    const prompter = session.draftPrompter(style)
    const resume = resumePoint(config.resume, outputPath, prepared.input, kept, (text) =>
      logger.info(text)
    )
    await prepared.branch.create()
    progress.persistTo(kept, prepared.input, prepared.branch.baseCommit)
    // From the base commit, before any draft: never what the model or another branch wrote.
    if (config.repoInstructions) {
      instructions = prompter.instructions = await RepoInstructions.read(
        git,
        prepared.branch.baseCommit,
        prepared.input.fix_plan.file_changes.map((change) => change.path)
      )
    }
    prompter.editorconfig = await EditorconfigRules.read(
      git,
      prepared.branch.baseCommit,
      prepared.input.fix_plan.file_changes.map((change) => change.path)
    )
    await session.setupCommands()
    const runner = sandboxedCommands(session.commandRunner())
    const steps = pipelineSteps(config, prepared.commands)
    const attempted = await attemptChange({
      input: prepared.input,
      format: resolveEditFormat(config.editFormat, config.model),
      formatFor: (content) => resolveEditFormat(config.editFormat, config.model, content),
      style,
      base: prepared.base,
      steps,
      retryFlaky: config.retryFlaky,
      keepPreexisting: config.onPreexistingFailure === 'commit',
      log: new AttemptLog(logDir, (text) => masker.mask(text)),
      maxRepairs: config.maxRepairs,
      concurrency: config.concurrency,
      drafter: env.mode?.drafter,
      mayStayUnchanged: env.mode?.mayStayUnchanged,
      runner,
      masker,
      model,
      prompter,
      budget,
      progress,
      resume,
      branch: prepared.branch,
      policy: prepared.policy,
      unicodeTextPaths: config.unicodeTextPaths,
      clock,
      logger
    })
    stats = attempted.stats
    // A stop of the loop is the run's failure, with the statistics it gathered.
    if (!attempted.ok) throw attempted.error
    green = attempted.change
    const commits = await commitChange(
      {
        config,
        input: prepared.input,
        git,
        branch: prepared.branch,
        model,
        masker,
        clock,
        logger,
        onSecret: env.onSecret,
        rewriteMessage: env.mode?.commitMessage,
        runUrl: runUrl(env),
        budget,
        revalidation: { steps, runner, retryFlaky: config.retryFlaky, policy: prepared.policy },
        pushesBase: env.mode?.pushesBase
      },
      green
    )
    response = { success: true, data: commits }
  } catch (error) {
    const agentError = session.failure(error)
    if (stats) agentError.details = { ...agentError.details, stats }
    if (branch) {
      const problems = await branch.rollback()
      problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
      if (problems.length > 0) {
        agentError.details = { ...agentError.details, rollback_problems: problems }
      }
    }
    const last = progress.keep(agentError, input, branch?.baseCommit)
    if (last) {
      agentError.details = { ...agentError.details, last_attempt: last }
      logger.info(
        `The last attempt (${last.attempt}, ${last.validated ? 'validated' : 'not validated'}) is kept in the result as error.details.last_attempt, never committed; a rerun with resume: true repairs from it`
      )
    }
    response = { success: false, error: agentError }
    await reportFailureOnIssue(config, env, input, response, masker, logger)
  }
  // The result says it now (error.details.last_attempt), or there is nothing to resume.
  if (branch) kept.remove()
  return session.finish(
    response,
    { attempts: stats?.attempts ?? attemptsOf(response), ...statsOf(stats) },
    {
      ...(green ? { placements: green.placements, minimal_fix: minimalFix(green.diff) } : {}),
      ...(generatedPlan(input) ? { plan_source: 'generated' } : {}),
      ...instructionMetrics(planInstructionFiles(input), instructions)
    },
    { branch: input?.fix_plan.branch_name ?? '', issueNumber: input?.issue.number }
  )
}

/** Repairs, retries by reason and why the loop stopped. */
function statsOf(stats: AttemptStats | undefined): Record<string, unknown> {
  if (!stats) return {}
  return { repairs: stats.repairs, retries: stats.retries, stop_reason: stats.stop_reason }
}

/** The instruction files some prompt carried (plan and drafts), and those cut to fit. */
function instructionMetrics(
  planned: readonly string[],
  instructions: RepoInstructions | undefined
): Record<string, unknown> {
  const files = [...new Set([...planned, ...(instructions?.used ?? [])])]
  if (files.length === 0) return {}
  const cut = instructions?.cut ?? []
  return { repo_instructions: { files, ...(cut.length > 0 ? { cut } : {}) } }
}

function attemptsOf(response: CodeAgentOutput): number {
  const attempts = response.error?.details?.attempts
  return typeof attempts === 'number' ? attempts : 0
}
