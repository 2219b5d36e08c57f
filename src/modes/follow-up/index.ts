import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { runEngine, type AgentEnvironment, type AgentRun, type RunEnd } from '../../engine/index.js'
import type { RunConfig } from '../../config.js'
import {
  InvalidInputError,
  type CodeAgentInput,
  type CodeAgentOutput,
  type Commit
} from '../../contract/index.js'
import { commitScope } from '../../change/index.js'
import { answerThreads, type RoundResult } from './answers.js'
import { assertCheckedOut, assertPatchsmithPullRequest, nextRound } from './guards.js'
import { failedCheckInput, reviewInput, sortThreads, type ThreadOutcome } from './plan.js'
import { PullRequestReview, type PullRequestInfo, type ReviewThread } from './pull-request.js'
import { ROUND_TRAILER } from './trailers.js'
import { followUpTrigger } from './trigger.js'

export { followUpTrigger } from './trigger.js'

interface FollowUpReport {
  pull_request: number
  round: number
  threads: ThreadOutcome[]
  ignored: number
}

interface FollowUpState {
  review?: PullRequestReview
  pr?: PullRequestInfo
  round: number
  actionable: ReviewThread[]
  declined: { thread: ReviewThread; reason: string }[]
  ignored: number
  /** Files a draft may leave as they are (a failed check plans every file of the PR). */
  optional: Set<string>
}

/**
 * A follow-up on Patchsmith's own pull request: the review threads that writers left open (or a
 * failed check's log) become a plan, the usual pipeline runs on the pull request's branch, one
 * new commit is pushed on top (never amended, never forced), and every thread is answered:
 * fixed (with the commit, resolved), declined (why) or escalated (why). At most
 * `max-follow-up-rounds` rounds per pull request, counted from its commits. With dry-run or
 * push: false nothing is pushed or answered: the result says what would be.
 */
export async function runFollowUp(config: RunConfig, env: AgentEnvironment): Promise<AgentRun> {
  if (config.taskFile || config.codingTask || config.agentInput || config.fixPlan)
    throw new InvalidInputError(
      'follow-up makes its own plan from the pull request: leave task-file, coding-task, agent-input and fix-plan empty.',
      { field: 'follow-up' }
    )
  const trigger = followUpTrigger(config.followUp ?? '', env.vars.GITHUB_EVENT_NAME, env.eventPath)
  const state: FollowUpState = {
    round: 0,
    actionable: [],
    declined: [],
    ignored: 0,
    optional: new Set()
  }
  let followUp: FollowUpReport | undefined
  // The commit goes on the pull request's branch, checked out; this mode pushes it.
  const onPullRequest = { ...env, unpushedOnOwnBranch: false }
  return runEngine({ ...config, push: false, commentOnFailure: false }, onPullRequest, {
    loadInput: async ({ repoDir, policy, logger }) => {
      const review = (state.review = await PullRequestReview.open(
        config.githubToken,
        env.repository,
        trigger.pullRequest,
        { apiUrl: env.apiUrl, warn: logger.warn }
      ))
      const pr = (state.pr = await review.info())
      await assertPatchsmithPullRequest(pr, review, env.repository)
      if (trigger.failedRun && trigger.failedRun.headSha !== pr.headSha)
        throw nothingToDo(
          `the failed run was on ${trigger.failedRun.headSha.slice(0, 12)}, and the pull request's head is now ${pr.headSha.slice(0, 12)}`
        )
      state.round = await nextRound(review, pr, config.maxFollowUpRounds)
      await assertCheckedOut(repoDir, pr)
      const on = (input: CodeAgentInput) => ({
        input,
        baseBranch: pr.head,
        about: { subject: `Pull request #${pr.number}`, on: pr.head },
        protectedBranches: [pr.defaultBranch]
      })
      const branch = `${pr.head}-follow-up-${state.round}`.slice(0, 200)
      const exists = (path: string) => existsSync(join(repoDir, path))
      if (trigger.failedRun) {
        const failed = await review.failedLog(trigger.failedRun)
        if (!failed) throw nothingToDo(`run ${JSON.stringify(trigger.failedRun)} has no failed job`)
        const files = (await review.changedFiles()).filter(
          (path) => !policy.check(path) && exists(path)
        )
        if (files.length === 0)
          throw nothingToDo('the pull request changes no file the policy allows')
        files.forEach((path) => state.optional.add(path))
        logger.info(
          `Follow-up round ${state.round} on #${pr.number}: the failed check "${failed.job}"`
        )
        return on(failedCheckInput(pr, failed, files, branch))
      }
      Object.assign(state, await sortThreads(review, await review.threads(), policy, exists))
      logger.info(
        `Follow-up round ${state.round} on #${pr.number}: ${state.actionable.length} thread(s) to address, ${state.declined.length} declined, ${state.ignored} ignored`
      )
      if (state.actionable.length === 0)
        throw nothingToDo('no open review thread by a writer asks for a change Patchsmith may make')
      return on(reviewInput(pr, state.actionable, branch))
    },
    commitMessage: (message) => roundMessage(message, state, trigger.failedRun !== undefined),
    mayStayUnchanged: (path) => state.optional.has(path),
    // The commit is published onto the pull request's branch (journaled, with the change's one
    // publish); someone pushed to it during the round: the commit goes on top.
    pushesBase: !config.dryRun && config.push,
    // The round's commit goes on the pull request's branch: no second branch beside it.
    handOffBranch: false,
    after: async (end) => {
      const { followUp: report, ...after } = await answer(config, env, state, end)
      followUp = report
      return after
    },
    result: (response) => (followUp ? { ...response, follow_up: followUp } : response),
    pullRequest: false
  })
}

/**
 * Once the run is over (its commit published onto the pull request's branch, unless quiet):
 * every thread answered. The response names the pull request's branch.
 */
async function answer(
  config: RunConfig,
  env: AgentEnvironment,
  state: FollowUpState,
  { response, mask }: RunEnd
): Promise<{ response: CodeAgentOutput; branch?: string; followUp?: FollowUpReport }> {
  const { review, pr } = state
  if (!review || !pr) return { response }
  const quiet = config.dryRun || !config.push
  const result: RoundResult = { round: state.round, quiet }
  if (response.success && !quiet) {
    const commits = response.data as Commit[]
    env.logger.info(`Pushed ${pr.head} to origin (pull request #${pr.number})`)
    result.commit = {
      sha: commits.at(-1)!.sha,
      files: commits.flatMap((commit) => commit.files_changed)
    }
  }
  if (!response.success) result.failure = failureOf(response.error)
  const threads = await answerThreads(review, state.actionable, state.declined, result, mask)
  const followUp = { pull_request: pr.number, round: state.round, threads, ignored: state.ignored }
  const withBranch = response.success
    ? {
        ...response,
        data: (response.data as Commit[]).map((commit) => ({ ...commit, branch: pr.head }))
      }
    : response
  return { response: withBranch, branch: pr.head, followUp }
}

/**
 * `fix(scope): address review on #N` with the round's trailer. The scope is the one the run
 * gave the commit (from the files it changed), else the threads' files.
 */
function roundMessage(message: string, state: FollowUpState, check: boolean): string {
  const paths = state.actionable.map((thread) => thread.path!)
  const scope =
    /^[a-z]+\(([a-z0-9-]+)\)/.exec(message)?.[1] ?? commitScope(paths.length > 0 ? paths : ['repo'])
  const what = check ? 'address the failing check' : 'address review'
  return `fix(${scope}): ${what} on #${state.pr?.number ?? ''}\n\n${ROUND_TRAILER}: ${state.round}`
}

/** The failure as a code and rule: no model-written text or @mention goes into a reply. */
function failureOf(error: { code: string; details?: Record<string, unknown> } | undefined): string {
  if (!error) return 'the run did not finish'
  const rule = typeof error.details?.rule === 'string' ? ` (${error.details.rule})` : ''
  return `${error.code}${rule}`
}

function nothingToDo(why: string): InvalidInputError {
  return new InvalidInputError(`Nothing to follow up: ${why}.`, {
    field: 'follow-up',
    rule: 'no-follow-up'
  })
}
