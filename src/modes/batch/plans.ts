import { join } from 'node:path'
import {
  toAgentError,
  type CodeAgentInput,
  type CodeAgentOutput,
  type Commit
} from '../../contract/index.js'
import { ChangeBranch, WorkBranch } from '../../change/index.js'
import { DEFAULT_STYLE } from '../../model/index.js'
import { planlessInput } from '../../planning/index.js'
import { assertCommandsAllowed } from '../../policy/index.js'
import { AttemptLog } from '../../report/index.js'
import { attemptChange, commitChange } from '../../agent/index.js'
import {
  branchGuards,
  guardPlannedFiles,
  openRepository,
  plannedAsFound,
  withinTimeLimit,
  workspacePolicy,
  type PlanRun,
  type RunContext
} from '../../engine/index.js'
import { batchIssues } from './issue-list.js'
import { batchOutcome, type IssueStatus } from './outcome.js'
import { doneIssues } from './earlier-commits.js'

/**
 * Several issues on one branch (`issues: 12, 15, 18` or `issues: label:NAME`): each issue in
 * order is planned (plan-less) on the branch as the issues before it left it, then drafted,
 * validated and committed with its own proof and `Fixes #N`; the first issue that fails is
 * rolled back and stops the batch, the commits before it stay (pushed after each one). A rerun
 * goes on from the branch's tip on origin: the issues an earlier run committed there are done,
 * and the rest run in order from the first not done.
 */
export class BatchPlans implements PlanRun {
  readonly baseCommit = undefined
  input: CodeAgentInput | undefined
  private readonly statuses: IssueStatus[] = []
  private readonly commits: Commit[] = []
  private work?: WorkBranch
  private branchName = ''

  constructor(private readonly ctx: RunContext) {}

  async run(): Promise<CodeAgentOutput> {
    const { ctx, statuses, commits } = this
    const { config, env, session } = ctx
    const { logger, repoDir, clock } = ctx.session
    const numbers = await batchIssues(config.issues!, {
      token: config.githubToken,
      repository: env.repository,
      client: { apiUrl: env.apiUrl, warn: (message) => logger.warn(message) }
    })
    this.branchName = `fix/batch-${numbers.join('-')}`.slice(0, 200)
    numbers.forEach((issue) => statuses.push({ issue, status: 'not-run' }))
    logger.info(
      `Batch of ${numbers.length} issue(s) on ${this.branchName}: #${numbers.join(', #')}`
    )
    // The same guards as one plan's (engine/workspace.ts), before any model call or change.
    const policy = workspacePolicy(config, repoDir)
    const git = (session.git = await openRepository(repoDir, logger))
    session.hooksFor(git)
    const push = config.push && !config.dryRun
    const work = (this.work = await WorkBranch.open(git, {
      branch: this.branchName,
      baseBranch: config.baseBranch,
      push,
      keepStart: env.unpushedOnOwnBranch,
      dryRun: config.dryRun,
      ...branchGuards(config, env, logger, { repoDir, publishes: push }),
      continueFromOrigin: true,
      source: { field: 'issues', name: "The batch's branch" },
      existsHint: 'delete it to run the batch from the start'
    }))
    if (work.continued) {
      for (const { issue, sha } of doneIssues(this.branchName, work.continued, numbers))
        Object.assign(
          statuses.find((s) => s.issue === issue)!,
          { status: 'done', sha }
        )
      const done = statuses.filter((s) => s.status === 'done').map((s) => `#${s.issue}`)
      logger.info(
        `${this.branchName} is on origin at ${work.continued.tip.slice(0, 12)}: going on from there` +
          (done.length > 0 ? `; done by an earlier run: ${done.join(', ')}` : '')
      )
    }
    await session.setupCommands()
    const prompter = session.draftPrompter()
    const planning = {
      repoDir,
      cwd: env.cwd,
      policy,
      model: () => ctx.model(),
      logger,
      github: { repository: env.repository, apiUrl: env.apiUrl }
    }
    for (const status of statuses) {
      if (status.status === 'done') continue
      let branch: ChangeBranch | undefined
      try {
        const input = await clock.time('load', () =>
          planlessInput(
            { ...config, issueNumber: status.issue, issue: undefined, baseBranch: work.head },
            undefined,
            planning
          )
        )
        this.input = input
        status.title = input.issue.title
        const paths = input.fix_plan.file_changes.map((change) => change.path)
        policy.assertAllowed(paths, 'plan')
        const planned = plannedAsFound(repoDir, paths)
        const commands = assertCommandsAllowed(
          input.fix_plan.validation_commands,
          config.validationCommands,
          config.allowPlanCommands
        )
        // Its own branch on the batch's tip: a failure rolls back to the last good commit.
        const issueBranch = `${this.branchName}-${status.issue}`
        input.fix_plan.branch_name = issueBranch
        const prepared = await guardPlannedFiles(git, planned, policy, () =>
          ChangeBranch.prepare(git, {
            branch: issueBranch,
            baseBranch: work.head,
            push: false,
            plannedPaths: paths
          })
        )
        branch = prepared
        await prepared.create()
        const base = planned.base
        const settings = ctx.attemptSettings({
          input,
          base,
          policy,
          log: new AttemptLog(join(ctx.session.logDir, `issue-${status.issue}`), (text) =>
            ctx.session.masker.mask(text)
          ),
          style: DEFAULT_STYLE,
          prompter,
          branch,
          commands
        })
        const attempted = await attemptChange(settings)
        status.attempts = attempted.stats.attempts
        if (!attempted.ok) throw attempted.error
        const made = await commitChange(
          ctx.finishContext({ input, git, branch, task: true }, settings),
          attempted.change
        )
        await work.checkpoint(issueBranch)
        commits.push(...made.map((commit) => ({ ...commit, branch: work.branch })))
        status.status = 'committed'
        status.sha = made[made.length - 1]?.sha
        logger.info(`#${status.issue} committed: ${status.sha?.slice(0, 12)}`)
      } catch (error) {
        const agentError = withinTimeLimit(toAgentError(error), ctx.session.budget)
        logger.warn(`#${status.issue} failed: ${agentError.code}: ${agentError.message}`)
        if (branch)
          (await branch.rollback()).forEach((problem) => logger.warn(`Rollback: ${problem}`))
        status.status = 'failed'
        status.error = { code: agentError.code, message: agentError.message }
        break
      }
    }
    const problems = await work.finish(commits.length > 0)
    problems.forEach((problem) => logger.warn(problem))
    return batchOutcome(statuses, commits, this.branchName)
  }

  stopped() {
    return { details: { issues: this.statuses }, data: this.commits }
  }

  async rollback(): Promise<string[]> {
    return this.work ? this.work.finish(this.commits.length > 0) : []
  }

  metrics() {
    const count = (status: IssueStatus['status']) =>
      this.statuses.filter((s) => s.status === status).length
    return {
      own: {
        issues: this.statuses,
        issues_committed: count('committed'),
        attempts: this.statuses.reduce((sum, s) => sum + (s.attempts ?? 0), 0)
      },
      after: {}
    }
  }

  names() {
    return { branch: this.work?.branch ?? this.branchName, issueNumber: this.input?.issue.number }
  }
}
