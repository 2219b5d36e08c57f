import type { CodeAgentInput, CodeAgentOutput, Commit } from '../../contract/index.js'
import { WorkBranch } from '../../change/index.js'
import { loadTasks, taskBatches, taskInput, type LoadedTasks } from '../../inputs/tasks/index.js'
import { assertCommandsAllowed } from '../../policy/index.js'
import {
  branchGuards,
  guardPlannedFiles,
  openRepository,
  plannedAsFound,
  workspacePolicy,
  type PlanRun,
  type RunContext
} from '../../engine/index.js'
import { runBatch, type TaskRun } from './batch.js'
import { outcome, parentInput, statusOf, type TaskStatus } from './outcome.js'

/**
 * A task file's plans on the engine: each pending task, in dependency order, becomes a small
 * plan that is drafted, applied, validated and committed on its own (a checkpoint: earlier
 * commits stay when a later task fails). `[P]` tasks ready together are drafted at once, then
 * applied, validated and committed one after another (batch.ts). A failed task's dependents
 * are skipped; the tasks that do not depend on it go on.
 */
export class TaskFilePlans implements PlanRun {
  readonly baseCommit = undefined
  private readonly statuses: TaskStatus[] = []
  private readonly commits: Commit[] = []
  private loaded?: LoadedTasks
  private work?: WorkBranch

  constructor(private readonly ctx: RunContext) {}

  /** The task file's issue, for the failure comment. */
  get input(): CodeAgentInput | undefined {
    return this.loaded && parentInput(this.loaded, this.work?.branch ?? '')
  }

  async run(): Promise<CodeAgentOutput> {
    const { ctx, statuses, commits } = this
    const { config, env, session } = ctx
    const { clock, logger, repoDir } = ctx.session
    const loaded = (this.loaded = await clock.time('load', () =>
      loadTasks({
        taskFile: config.taskFile!,
        issue: config.issue,
        triageResult: config.triageResult,
        eventPath: env.eventPath,
        baseDir: env.cwd
      })
    ))
    const tasks = loaded.file.tasks
    const batches = taskBatches(tasks)
    const pending = batches.flat()
    tasks.filter((task) => task.done).forEach((task) => statuses.push(statusOf(task, 'done')))
    logger.info(
      `Issue #${loaded.issue.number}: ${pending.length} pending of ${tasks.length} task(s) in ${batches.length} batch(es)`
    )
    const branchName = loaded.file.branch ?? `feat/${loaded.issue.number}-tasks`
    const planned = [...new Set(pending.flatMap((task) => task.paths))]
    for (const task of pending)
      taskInput(task, { ...loaded, branch: branchName, exists: () => true })
    // The same guards as one plan's (engine/workspace.ts), before any model call or change.
    const policy = workspacePolicy(config, repoDir)
    policy.assertAllowed(planned, 'plan')
    const commands = assertCommandsAllowed([], config.validationCommands, config.allowPlanCommands)
    const git = (session.git = await openRepository(repoDir, logger))
    session.hooksFor(git)
    const push = config.push && !config.dryRun
    const guards = await guardPlannedFiles(
      git,
      plannedAsFound(repoDir, planned),
      policy,
      async () => branchGuards(config, env, logger, { repoDir, publishes: push })
    )
    ctx.model()
    const prompter = session.draftPrompter()
    const work = (this.work = await WorkBranch.open(git, {
      branch: branchName,
      baseBranch: config.baseBranch,
      push,
      keepStart: env.unpushedOnOwnBranch,
      dryRun: config.dryRun,
      plannedPaths: planned,
      ...guards
    }))
    await session.setupCommands()
    const run: TaskRun = { ctx, loaded, git, work, policy, commands, prompter }
    for (const batch of batches) {
      await runBatch(run, batch, statuses, commits)
    }
    const problems = await work.finish(commits.length > 0)
    problems.forEach((problem) => logger.warn(problem))
    return outcome(statuses, commits, branchName)
  }

  stopped() {
    const { statuses, commits } = this
    return { details: statuses.length > 0 ? { tasks: statuses } : undefined, data: commits }
  }

  async rollback(): Promise<string[]> {
    return this.work ? this.work.finish(this.commits.length > 0) : []
  }

  metrics() {
    const { statuses } = this
    const count = (status: TaskStatus['status']) =>
      statuses.filter((task) => task.status === status).length
    return {
      own: {
        tasks: statuses,
        tasks_committed: count('committed'),
        tasks_failed: count('failed'),
        tasks_skipped: count('skipped'),
        attempts: statuses.reduce((sum, task) => sum + (task.attempts ?? 0), 0)
      },
      after: {}
    }
  }

  names() {
    const { work, loaded } = this
    return { branch: work?.branch ?? loaded?.file.branch ?? '', issueNumber: loaded?.issue.number }
  }
}
