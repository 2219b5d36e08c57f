import type { RunConfig } from '../config.js'
import type { CodeAgentInput, CodeAgentOutput, Commit } from '../contract/index.js'
import {
  acceptSubject,
  commitGroups,
  commitMessage,
  commitScope,
  commitType,
  splitPatch,
  templateSubject,
  withRunTrailer,
  type CommitGroup,
  type Git
} from '../git/index.js'
import type { ChangeBranch, CommitRequest, MadeCommit } from '../change/index.js'
import { commitMessages, type ModelClient, type RunBudget } from '../model/index.js'
import { assertCommittedAsApproved, assertNoSecretInChange } from '../policy/index.js'
import { postFailureFeedback } from '../github/index.js'
import { failureComment } from '../report/index.js'
import type { SecretMasker } from '../secrets/index.js'
import { proofFields } from '../validation/index.js'
import type { GreenChange } from './attempts.js'
import {
  runUrl,
  type RunnerFacts,
  type Logger,
  type PhaseClock,
  type RunListener
} from '../run/index.js'
import { guardHooks } from './leftovers.js'
import { followMovedBase, type Revalidation } from './moved-base.js'

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
  /** An adapter's rewrite of each message (RunHooks.commitMessage). */
  rewriteMessage?: (message: string) => string
  /** The workflow run's page: each commit names it in a Patchsmith-Run trailer. */
  runUrl?: string
  /** Asked before and after the push: a cancelled run stops there and is rolled back. */
  budget?: RunBudget
  /**
   * One task of a task file: its commit goes on the run's branch through a temporary ref, so
   * where the commit went and the hand-off to a pull-request step are the run's to tell.
   */
  task?: boolean
  /** How the change is validated again when origin's base moved during the run. */
  revalidation?: Revalidation
  /** The change is committed on the base and published there (RunMode.pushesBase). */
  pushesBase?: boolean
}

/**
 * Commits the green change (or, in a dry run, rolls it back), pushes it or leaves it on the
 * base for a pull-request step, and describes each commit. An earlier run's branch that holds
 * the same change is reused: no second commit.
 */
export async function commitChange(ctx: FinishContext, green: GreenChange): Promise<Commit[]> {
  const { config, input, branch, clock, logger } = ctx
  const plan = input.fix_plan
  const secret = branch.authSecret
  if (secret) {
    ctx.masker.add(secret)
    ctx.onSecret?.(secret)
  }
  assertNoSecretInChange(green.edits, ctx.masker)
  const planned = plan.file_changes.map((change) => change.path)
  const describe = (
    made: Partial<MadeCommit> & { message: string },
    diff: string,
    files: readonly string[] = planned
  ): Commit => ({
    issue_number: input.issue.number,
    message: made.message,
    diff,
    files_changed: [...files],
    timestamp: new Date().toISOString(),
    validation_results: green.results,
    sha: made.sha ?? '',
    branch: plan.branch_name,
    patch_id: made.patchId ?? '',
    ...proofFields(green.verdicts, input, green.proven),
    base_sha: branch.baseCommit
  })
  if (config.dryRun) {
    const written = await clock.time('commit', () => writeMessage(ctx.model, input, green, logger))
    const message = finalMessage(ctx, written)
    logger.info('Dry run: validated, rolling back instead of committing')
    const problems = await branch.rollback()
    problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
    return [describe({ message }, green.diff)]
  }
  const reused = await clock.time('commit', () => branch.reuseExisting())
  let commits: Commit[]
  if (reused) {
    logger.info(
      `Branch ${plan.branch_name} already holds this change (${shas(reused)}): reused, nothing committed`
    )
    commits = reused.map((made) => describe(made, made.diff))
  } else {
    const groups = commitGroups(
      plan.plan_steps,
      green.edits.map((edit) => edit.path)
    )
    const requests = (await clock.time('commit', () => commitRequests(ctx, green, groups))).map(
      (request) => ({
        ...request,
        // The commit's tree is built from these approved contents, not from the shared index.
        files: green.edits
          .filter((edit) => request.paths.includes(edit.path))
          .map((edit) => ({ path: edit.path, content: edit.after })),
        message: finalMessage(ctx, request.message)
      })
    )
    const approved = green.edits.map((edit) => edit.path)
    const guard = () => guardHooks(branch.git.dir, branch.git, approved, config.logDir, logger)
    const made = await clock.time('commit', () =>
      branch.commit(requests, {
        signoff: config.signoff,
        hooks: config.gitHooks,
        guardHooks: config.gitHooks ? guard : undefined
      })
    )
    // What git committed must be the approved change: exactly, or with hooks (formatters may
    // rewrite what they commit) the approved paths and operations.
    const tip = made[made.length - 1]!.sha
    await assertCommittedAsApproved(branch.git, branch.baseCommit, tip, green.edits, made.length, {
      content: !config.gitHooks
    })
    if (!ctx.task) {
      logger.info(
        `Committed ${shas(made)} on ${branch.handsOffBranch ? `${branch.base} (and ${plan.branch_name})` : branch.commitsOnBase ? branch.base : plan.branch_name}`
      )
    }
    // With hooks, what was committed may differ from what was validated: report git's patch.
    commits = made.map((commit, i) =>
      describe(
        commit,
        config.gitHooks ? commit.diff : requests[i]!.patch,
        made.length > 1 ? requests[i]!.paths : planned
      )
    )
  }
  if ((branch.push && !branch.reused) || (ctx.pushesBase && !ctx.task)) {
    // Someone pushed to the base meanwhile: the change goes on top of it, validated again.
    commits = await clock.time('push', () =>
      followMovedBase(branch, commits, ctx.revalidation, logger)
    )
  }
  if (branch.push && !branch.reused) {
    ctx.budget?.assertNotCancelled('before the push')
    await clock.time('push', () => branch.pushBranch())
    // A push already under way finishes; the rollback then deletes the branch it published.
    ctx.budget?.assertNotCancelled('during the push')
    logger.info(`Pushed ${plan.branch_name} to origin`)
  } else if (branch.publishesBase && !branch.reused) {
    // The pull request's branch, which the run did not make: once pushed, the change stays.
    ctx.budget?.assertNotCancelled('before the push')
    await clock.time('push', () => branch.pushBranch())
  } else if (!branch.push && !ctx.task && !ctx.pushesBase) {
    // A mode that pushes the base itself once the run is over says so then (a follow-up).
    logger.info(notPushed(branch, plan.branch_name))
  }
  // commit-signing: github: the branch holds the API's verified commits, same trees.
  const published = branch.published
  if (published)
    commits = commits.map((commit) => ({ ...commit, sha: published.get(commit.sha) ?? commit.sha }))
  const problems = await branch.restoreUserChanges()
  problems.forEach((problem) => logger.warn(problem))
  return commits
}

/** Where an unpushed commit is: on the base for a pull-request step, or on the plan's branch. */
function notPushed(branch: ChangeBranch, name: string): string {
  if (branch.handsOffBranch)
    return `Not pushed: the commit is on ${branch.base} for a pull-request step (branch: ${name})`
  if (branch.commitsOnBase) return `Not pushed: the commit is on ${branch.base}`
  return `Not pushed: the commit is on ${name}; ${branch.base} is as it was`
}

/** One request per commit: the model's subject for a single commit, the template per step. */
async function commitRequests(
  ctx: FinishContext,
  green: GreenChange,
  groups: CommitGroup[]
): Promise<CommitRequest[]> {
  const { input } = ctx
  if (groups.length === 1) {
    const message = await writeMessage(ctx.model, input, green, ctx.logger)
    return [{ message, patch: green.diff, paths: groups[0]!.paths, staged: green.staged }]
  }
  const sections = splitPatch(green.diff)
  const type = commitType(input.triage_result, input.fix_plan.branch_name)
  return groups.map((group) => {
    const step = group.step!
    const description =
      step.description ?? `${input.issue.title} (step ${step.number} of ${step.total})`
    const subject = templateSubject(type, commitScope(group.paths), description)
    return {
      message: commitMessage(subject, input.issue.number),
      patch: group.paths.map((path) => sections.get(path) ?? '').join(''),
      paths: group.paths
    }
  })
}

/** The message as committed: the adapter's rewrite, then the run's trailer. */
function finalMessage(ctx: FinishContext, message: string): string {
  return withRunTrailer(ctx.rewriteMessage ? ctx.rewriteMessage(message) : message, ctx.runUrl)
}

function shas(commits: readonly { sha: string }[]): string {
  return commits.map((commit) => commit.sha).join(', ')
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

/**
 * The failure comment and label on the issue, masked. What could not be done (no permission, no
 * such issue, rate limits that held) is logged and noted in the result, never thrown.
 */
export async function reportFailureOnIssue(
  config: RunConfig,
  facts: RunnerFacts & { progress?: RunListener },
  input: CodeAgentInput | undefined,
  response: CodeAgentOutput,
  masker: SecretMasker,
  logger: Logger
): Promise<void> {
  const error = response.error
  const repository = facts.repository
  if (!config.commentOnFailure || !config.githubToken || !repository || !input || !error) {
    return
  }
  const body = failureComment(error, { branch: input.fix_plan.branch_name, runUrl: runUrl(facts) })
  const problems = await postFailureFeedback(
    {
      token: config.githubToken,
      repository,
      issueNumber: input.issue.number,
      label: config.failureLabel,
      client: { apiUrl: facts.apiUrl, warn: (message) => logger.warn(message) }
    },
    // A progress comment on the issue ends with the failure: the label only.
    facts.progress?.ownsIssueComment ? undefined : masker.mask(body)
  )
  problems.forEach((problem) => logger.warn(`Issue feedback: ${problem}`))
  if (problems.length > 0) error.details = { ...error.details, issue_feedback_problems: problems }
}
