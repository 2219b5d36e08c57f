import type { RunConfig } from '../config.js'
import type { CodeAgentInput, CodeAgentOutput, Commit } from '../contract/index.js'
import {
  acceptSubject,
  commitMessage,
  commitScope,
  commitType,
  pushAuth,
  templateSubject,
  type ChangeBranch,
  type Git
} from '../git/index.js'
import { commitMessages, type ModelClient } from '../model/index.js'
import { failureComment, postFailureFeedback } from '../report/index.js'
import type { SecretMasker } from '../validation/index.js'
import type { GreenChange } from './attempts.js'
import type { Logger } from './logger.js'
import type { PhaseClock } from './phase-clock.js'

export interface FinishContext {
  config: RunConfig
  input: CodeAgentInput
  git: Git
  branch: ChangeBranch
  model: ModelClient
  masker: SecretMasker
  clock: PhaseClock
  logger: Logger
  onSecret?: (value: string) => void
}

/** Commit the green change (or, in a dry run, roll it back), push it, and describe it. */
export async function commitAndPush(ctx: FinishContext, green: GreenChange): Promise<Commit> {
  const { config, input, branch, clock, logger } = ctx
  const plan = input.fix_plan
  const message = await clock.time('commit', () => writeMessage(ctx.model, input, green, logger))
  let sha = ''
  let patchId = ''
  if (config.dryRun) {
    logger.info('Dry run: validated, rolling back instead of committing')
    await branch.rollback()
  } else {
    sha = await clock.time('commit', () => branch.commit(message, config.signoff))
    patchId = await clock.time('commit', () => ctx.git.patchId(sha))
    logger.info(`Committed ${sha} on ${plan.branch_name}`)
    if (config.push) {
      const auth = await pushAuth(ctx.git, 'origin', config.githubToken)
      if (auth) {
        ctx.masker.add(auth.secret)
        ctx.onSecret?.(auth.secret)
      }
      await clock.time('push', () => branch.push(auth?.env))
      logger.info(`Pushed ${plan.branch_name} to origin`)
    }
  }
  return {
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
    if (!subject) {
      logger.warn(
        'The generated commit subject is not a valid Conventional Commit; using the template'
      )
    }
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

/** The failure comment and label on the issue, masked; problems are logged, never thrown. */
export async function reportFailureOnIssue(
  config: RunConfig,
  repository: string | undefined,
  input: CodeAgentInput | undefined,
  response: CodeAgentOutput,
  masker: SecretMasker,
  logger: Logger
): Promise<void> {
  if (!config.commentOnFailure || !config.githubToken || !repository || !input || !response.error) {
    return
  }
  const problems = await postFailureFeedback(
    {
      token: config.githubToken,
      repository,
      issueNumber: input.issue.number,
      label: config.failureLabel
    },
    masker.mask(failureComment(response.error))
  )
  problems.forEach((problem) => logger.warn(`Issue feedback: ${problem}`))
}
