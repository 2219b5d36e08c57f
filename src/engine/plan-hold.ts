import {
  InvalidInputError,
  planHash,
  type AwaitingApproval,
  type CodeAgentOutput
} from '../contract/index.js'
import { pipelineSteps } from '../validation/index.js'
import { plannedReproduction } from '../agent/index.js'
import type { PreparedRun } from './prepare.js'
import type { RunContext } from './run-context.js'

/** The reply that approves a plan, followed by its hash. */
const APPROVE_COMMAND = '/patchsmith approve'

/**
 * The approval step, between guard and the first change (`plan-approval: required`): a plan
 * that came with an approval runs only while it still has the approved hash; a plan without one
 * ends the run here, shown as it would run, with nothing changed (`awaiting_approval`).
 */
export async function approvalStep(
  ctx: RunContext,
  prepared: PreparedRun
): Promise<CodeAgentOutput | undefined> {
  const { config, logger } = ctx
  if (config.planApproval !== 'required') return undefined
  const hash = planHash(prepared.input)
  const { approved } = prepared
  if (approved) {
    // The mode checked it against the plan it read; checked again against the plan loaded.
    if (approved.hash !== hash)
      throw new InvalidInputError(
        `The plan changed after it was approved: ${approved.by} approved ${approved.hash}, the plan loaded is ${hash}. Nothing was changed; approve the plan as it is now.`,
        { field: 'plan-approval', rule: 'plan-changed', approved: approved.hash, now: hash }
      )
    logger.info(`Plan ${hash}, approved by ${approved.by}: running it as approved`)
    return undefined
  }
  const awaiting = await heldPlan(ctx, prepared, hash)
  if (awaiting.not_posted) logger.warn(`plan-approval: required: ${awaiting.not_posted}`)
  else
    logger.info(
      `plan-approval: required: the plan (${hash}) is posted for approval on #${awaiting.posted_on} and nothing was changed; a writer approves it with "${awaiting.approve_command}" or the label "${awaiting.approve_label}"`
    )
  return { success: false, data: [], awaiting_approval: awaiting }
}

/**
 * Where the plan is posted for approval (the progress comment's issue), or why it cannot be and
 * how it can be approved then: a run with no issue comment leaves no plan a writer could approve.
 */
function approvalPlace(
  ctx: RunContext,
  input: PreparedRun['input'],
  hash: string
): Pick<AwaitingApproval, 'posted_on' | 'not_posted'> {
  const { config, env } = ctx
  const listener = env.progress
  if (listener?.ownsIssueComment && listener.issueNumber) return { posted_on: listener.issueNumber }
  const why = listener?.issueNumber
    ? `the progress comment on #${listener.issueNumber} could not be written (the log says why)`
    : config.dryRun
      ? 'a dry run posts no comment'
      : !config.progressComment
        ? 'progress-comment is false'
        : 'the run has no issue to comment on (the command line posts no comment; the action posts on the issue it was started from, or the one a run by hand names, with a github-token)'
  const issue = input.issue.number
  return {
    not_posted: `The plan (${hash}) could not be posted for approval: ${why}. Nothing was changed, and no comment holds the plan, so it cannot be approved yet. To approve it, run Patchsmith with plan-approval: required where it comments on issue #${issue} (from that issue, or by hand naming issue ${issue}): it posts the plan there, with the hash ${hash} while the plan and the issue's text stay the same (a plan Patchsmith makes itself may come out different), and a person with write permission approves it with "${APPROVE_COMMAND} ${hash}" or the label "${config.approvalLabel}". Or run it without approval (plan-approval: off).`
  }
}

/** The plan as it would run: its files and steps, the commands in order, the reproduction. */
async function heldPlan(
  ctx: RunContext,
  prepared: PreparedRun,
  hash: string
): Promise<AwaitingApproval> {
  const { input, git, branch, commands } = prepared
  const steps = pipelineSteps(ctx.config, commands)
  const reproduction = await plannedReproduction(
    git,
    branch.baseCommit,
    steps,
    input,
    ctx.config.reproduction
  )
  return {
    issue_number: input.issue.number,
    plan_hash: hash,
    fix_plan: input.fix_plan,
    triage_result: input.triage_result,
    validation_commands: steps.map((step) => step.command),
    reproduction,
    approve_command: `${APPROVE_COMMAND} ${hash}`,
    approve_label: ctx.config.approvalLabel,
    ...approvalPlace(ctx, input, hash)
  }
}
