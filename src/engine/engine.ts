import type { RunConfig } from '../config.js'
import { awaitsApproval, type AgentError, type CodeAgentOutput } from '../contract/index.js'
import { reportFailureOnIssue } from '../agent/index.js'
import { generatedPlan } from '../planning/index.js'
import { OnePlan } from './one-plan.js'
import { RunContext } from './run-context.js'
import type { PlanRun, RunMode } from './mode-seams.js'
import { finishRun } from './result.js'
import { RunSession } from './session.js'
import { BudgetExhausted } from './budget-ledger.js'
import type { AgentEnvironment, AgentRun } from './entry.js'

/**
 * The one engine under every way of running: it opens the run, has the mode's plans run (one
 * plan by default, a task file batch after batch), and on any failure rolls back, keeps the
 * last attempt and reports on the issue; then the result is shaped by the mode, masked with the
 * run's one masker and written once (finishRun).
 */
export async function runEngine(
  config: RunConfig,
  env: AgentEnvironment,
  mode: RunMode = {}
): Promise<AgentRun> {
  const ctx = new RunContext(new RunSession(config, env), mode)
  const plans = mode.plans?.(ctx) ?? new OnePlan(ctx, mode.loadInput)
  let response: CodeAgentOutput
  try {
    await ctx.session.open()
    response = await plans.run()
  } catch (error) {
    // Refused by the rolling budget before anything was read or changed: not a failure.
    if (error instanceof BudgetExhausted) {
      ctx.logger.warn(error.message)
      response = error.response()
    } else response = await stopped(ctx, plans, ctx.session.failure(error))
  }
  // The result says it now (error.details.last_attempt), or there is nothing to resume.
  if (plans.baseCommit !== undefined) ctx.kept.remove()
  // A plan held for approval is no failure: nothing to report on the issue but the plan.
  if (!response.success && !awaitsApproval(response)) {
    const { masker, logger } = ctx.session
    await reportFailureOnIssue(config, env, plans.input, response, masker, logger)
  }
  const { own, after } = plans.metrics(response)
  const names = {
    ...plans.names(),
    issueTitle: plans.input?.issue.title,
    planSteps: plans.input?.fix_plan.plan_steps
  }
  // Only a run of one plan from the settings is recorded for replay (patchsmith replay).
  const replayable = !mode.plans && !mode.loadInput && !mode.drafter && !mode.after
  const replay = replayable
    ? {
        input: plans.input,
        generatedPlan: generatedPlan(plans.input),
        baseCommit: plans.baseCommit
      }
    : undefined
  return finishRun(ctx.session, response, own, after, names, mode, replay)
}

/** A stopped run: what it made kept, the repository put back, its last attempt kept. */
async function stopped(
  ctx: RunContext,
  plans: PlanRun,
  error: AgentError
): Promise<CodeAgentOutput> {
  const { logger } = ctx
  const made = plans.stopped(error)
  if (made.details) error.details = { ...error.details, ...made.details }
  const problems = await plans.rollback()
  problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
  if (problems.length > 0) error.details = { ...error.details, rollback_problems: problems }
  const last = ctx.progress.keep(error, plans.input, plans.baseCommit)
  if (last) {
    error.details = { ...error.details, last_attempt: last }
    logger.info(
      `The last attempt (${last.attempt}, ${last.validated ? 'validated' : 'not validated'}) is kept in the result as error.details.last_attempt, never committed; a rerun with resume: true repairs from it`
    )
  }
  return { success: false, error, ...(made.data?.length ? { data: made.data } : {}) }
}
