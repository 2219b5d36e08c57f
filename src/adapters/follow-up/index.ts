import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runAgent, type AgentEnvironment, type AgentRun } from '../../agent/index.js'
import type { RunConfig } from '../../config.js'
import {
  GitConflictError,
  InvalidInputError,
  PermissionDeniedError,
  type CodeAgentInput,
  type Commit
} from '../../contract/index.js'
import { commitScope, Git, pushAuth } from '../../git/index.js'
import { writeJsonFile } from '../result-file.js'
import {
  failedCheckInput,
  reviewInput,
  sortThreads,
  REPLY_MARKER,
  type ThreadOutcome
} from './plan.js'
import { PullRequestReview, type PullRequestInfo, type ReviewThread } from './pull-request.js'
import { followUpTrigger } from './trigger.js'

export { followUpTrigger, COMMAND } from './trigger.js'
export type { ThreadOutcome } from './plan.js'

/** The trailer that counts a pull request's follow-up rounds. */
export const ROUND_TRAILER = 'Patchsmith-Follow-Up'
// The branch names Patchsmith gives its pull requests (planBranchName and the commit types).
const PATCHSMITH_BRANCH = /^(fix|feat|docs|chore|refactor)\/\d+(-[a-z0-9-]+)?$/

interface FollowUpState {
  review?: PullRequestReview
  pr?: PullRequestInfo
  round: number
  actionable: ReviewThread[]
  declined: { thread: ReviewThread; reason: string }[]
  ignored: number
}

/**
 * A follow-up on Patchsmith's own pull request: the review threads that writers left open (or a
 * failed check's log) become a plan, the usual pipeline runs on the pull request's branch, one
 * new commit is pushed on top (never amended, never forced), and every thread is answered:
 * fixed (with the commit, resolved), declined (why) or escalated (the run failed). At most
 * `max-follow-up-rounds` rounds per pull request, counted from its commits.
 */
export interface FollowUpReport {
  pull_request: number
  round: number
  threads: ThreadOutcome[]
  ignored: number
}

export async function runFollowUp(
  config: RunConfig,
  env: AgentEnvironment
): Promise<{ run: AgentRun; followUp?: FollowUpReport }> {
  const trigger = followUpTrigger(config.followUp ?? '', env.vars.GITHUB_EVENT_NAME, env.eventPath)
  const state: FollowUpState = { round: 0, actionable: [], declined: [], ignored: 0 }
  // The commit goes on the pull request's branch, checked out; this adapter pushes it.
  const runConfig: RunConfig = { ...config, push: false, commentOnFailure: false }
  const run = await runAgent(runConfig, {
    ...env,
    hooks: {
      loadInput: async ({ repoDir, policy, logger }) => {
        const review = (state.review = await PullRequestReview.open(
          config.githubToken,
          env.repository,
          trigger.pullRequest,
          { apiUrl: env.apiUrl, warn: logger.warn }
        ))
        const pr = (state.pr = await review.info())
        state.round = await nextRound(review, pr, config.maxFollowUpRounds)
        await assertOnBranch(repoDir, pr.head)
        runConfig.baseBranch = pr.head
        const branch = `${pr.head}-follow-up-${state.round}`.slice(0, 200)
        const exists = (path: string) => existsSync(join(repoDir, path))
        if (trigger.failedRun) {
          const failed = await review.failedLog(trigger.failedRun)
          if (!failed)
            throw nothingToDo(`run ${JSON.stringify(trigger.failedRun)} has no failed job`)
          const files = (await review.changedFiles()).filter(
            (path) => !policy.check(path) && exists(path)
          )
          if (files.length === 0)
            throw nothingToDo('the pull request changes no file the policy allows')
          logger.info(
            `Follow-up round ${state.round} on #${pr.number}: the failed check "${failed.job}"`
          )
          return failedCheckInput(pr, failed, files, branch)
        }
        Object.assign(state, await sortThreads(review, await review.threads(), policy, exists))
        logger.info(
          `Follow-up round ${state.round} on #${pr.number}: ${state.actionable.length} thread(s) to address, ${state.declined.length} declined, ${state.ignored} ignored`
        )
        if (state.actionable.length === 0) {
          await answerDeclined(review, state)
          throw nothingToDo(
            'no open review thread by a writer asks for a change Patchsmith may make'
          )
        }
        return reviewInput(pr, state.actionable, branch)
      },
      commitMessage: (message) => roundMessage(message, state, trigger.failedRun !== undefined)
    }
  })
  const { review, pr } = state
  if (!review || !pr) return { run }
  let response = run.response
  let commit: string | undefined
  if (response.success) {
    commit = (response.data as Commit[]).at(-1)?.sha
    try {
      await pushOnto(config, env, pr.head)
    } catch (error) {
      const failed = error instanceof GitConflictError || error instanceof PermissionDeniedError
      if (!failed) throw error
      response = { success: false, error: error.toAgentError() }
      commit = undefined
    }
  }
  const outcomes = await answerThreads(review, state, commit, response.error)
  const followUp = {
    pull_request: pr.number,
    round: state.round,
    threads: outcomes,
    ignored: state.ignored
  }
  writeJsonFile(run.outputPath, { ...readJson(run.outputPath), ...response, follow_up: followUp })
  return { run: { ...run, response }, followUp }
}

/** The round this run would be; past the cap, a summary comment and a refusal. */
async function nextRound(
  review: PullRequestReview,
  pr: PullRequestInfo,
  max: number
): Promise<number> {
  const messages = await review.commitMessages()
  const rounds = messages.filter((message) =>
    new RegExp(`^${ROUND_TRAILER}: \\d+$`, 'm').test(message)
  ).length
  if (!PATCHSMITH_BRANCH.test(pr.head) && rounds === 0) {
    throw new InvalidInputError(
      `Pull request #${pr.number} (branch ${pr.head}) was not made by Patchsmith: follow-ups only change Patchsmith's own pull requests.`,
      { field: 'follow-up', rule: 'not-patchsmith-pr' }
    )
  }
  if (rounds >= max) {
    await review.comment(
      `${REPLY_MARKER}\nPatchsmith has followed up on this pull request ${rounds} time(s), as many as \`max-follow-up-rounds\` (${max}) allows, and stops here. The open threads are for a maintainer now.`
    )
    throw new InvalidInputError(
      `Pull request #${pr.number} has had ${rounds} follow-up round(s), the most max-follow-up-rounds (${max}) allows; a summary comment says so on the pull request.`,
      { field: 'max-follow-up-rounds', rule: 'follow-up-rounds-exhausted', rounds }
    )
  }
  return rounds + 1
}

/** The planned files are read from the work tree: it has to be the pull request's branch. */
async function assertOnBranch(repoDir: string, head: string): Promise<void> {
  const git = await Git.open(repoDir)
  const current = (await git.status()).branch
  if (current === head) return
  throw new InvalidInputError(
    `A follow-up works on the pull request's branch ${head}, but ${current ? `${current} is` : 'a detached HEAD is'} checked out: check it out first (actions/checkout with ref: ${head}).`,
    { field: 'follow-up', rule: 'not-on-pr-branch', branch: head }
  )
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

/** A plain push of the branch: fast-forward only, so nobody's commits on it are ever lost. */
async function pushOnto(config: RunConfig, env: AgentEnvironment, head: string): Promise<void> {
  const git = await Git.open(config.repo)
  const auth = pushAuth(config.githubToken, env.serverUrl, env.vars)
  if (auth) env.onSecret?.(auth.secret)
  const out = await git.push('origin', `refs/heads/${head}:refs/heads/${head}`, auth?.env)
  if (out.exitCode === 0) return
  const said = out.stderr.trim()
  if (/rejected|non-fast-forward|fetch first/i.test(said)) {
    throw new GitConflictError(
      `The follow-up commit is on ${head} here, but ${head} moved on origin meanwhile; it was not pushed (never forced). Run the follow-up again.`,
      { rule: 'branch-moved', branch: head, stderr: said.slice(-1_000) }
    )
  }
  throw new PermissionDeniedError(
    `Pushing the follow-up commit to ${head} failed: ${said.slice(-500)}`,
    {
      rule: 'push-failed',
      branch: head
    }
  )
}

async function answerThreads(
  review: PullRequestReview,
  state: FollowUpState,
  commit: string | undefined,
  error: { code: string; message: string } | undefined
): Promise<ThreadOutcome[]> {
  const outcomes: ThreadOutcome[] = []
  for (const thread of state.actionable) {
    const where = { id: thread.id, path: thread.path, line: thread.line }
    if (commit) {
      await review.reply(
        thread.id,
        `${REPLY_MARKER}\nAddressed in ${commit} (Patchsmith follow-up, round ${state.round}).`
      )
      await review.resolve(thread.id)
      outcomes.push({ ...where, status: 'fixed', commit })
    } else {
      const why = error ? `${error.code}: ${error.message}` : 'the run did not finish'
      await review.reply(
        thread.id,
        `${REPLY_MARKER}\nPatchsmith could not address this in round ${state.round} (${why}). Left open for a maintainer.`
      )
      outcomes.push({ ...where, status: 'escalated', reason: why })
    }
  }
  return [...outcomes, ...(await answerDeclined(review, state))]
}

async function answerDeclined(
  review: PullRequestReview,
  state: FollowUpState
): Promise<ThreadOutcome[]> {
  const outcomes: ThreadOutcome[] = []
  for (const { thread, reason } of state.declined.splice(0)) {
    await review.reply(thread.id, `${REPLY_MARKER}\nPatchsmith did not change this: ${reason}.`)
    outcomes.push({
      id: thread.id,
      path: thread.path,
      line: thread.line,
      status: 'declined',
      reason
    })
  }
  return outcomes
}

function nothingToDo(why: string): InvalidInputError {
  return new InvalidInputError(`Nothing to follow up: ${why}.`, {
    field: 'follow-up',
    rule: 'no-follow-up'
  })
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch {
    return {}
  }
}

export type { CodeAgentInput }
