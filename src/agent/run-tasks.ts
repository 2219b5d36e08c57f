import { runUrl } from './environment.js'
import { join } from 'node:path'
import type { RunConfig } from '../config.js'
import {
  toAgentError,
  type AgentError,
  type CodeAgentInput,
  type CodeAgentOutput,
  type Commit
} from '../contract/index.js'
import { resolveEditFormat } from '../edits/index.js'
import {
  ChangeBranch,
  WorkBranch,
  Git,
  RunJournal,
  WorktreeFiles,
  gitIncludedPaths,
  pushAuth
} from '../git/index.js'
import {
  loadTasks,
  taskBatches,
  taskInput,
  type LoadedTasks,
  type Task
} from '../inputs/tasks/index.js'
import {
  DEFAULT_STYLE,
  type DraftPrompter,
  type ModelClient,
  type RunBudget
} from '../model/index.js'
import { PathPolicy, assertCommandsAllowed, assertRepoPaths } from '../policy/index.js'
import { AttemptLog } from '../report/index.js'
import { pipelineSteps, type CommandRunnerOptions, type PipelineStep } from '../validation/index.js'
import type { SecretMasker } from '../secrets/index.js'
import { attemptChange } from './attempts.js'
import { sandboxedCommands } from './commands.js'
import { draftEdits, type DraftContext, type Drafted } from './drafting.js'
import { commitChange, reportFailureOnIssue } from './finish.js'
import type { Logger } from './logger.js'
import type { PhaseClock } from './phase-clock.js'
import { jailHooks } from './run-setup.js'
import { RunSession } from './run-session.js'
import { withinTimeLimit, type AgentEnvironment, type AgentRun } from './session.js'
import { outcome, parentInput, statusOf, type TaskStatus } from './task-outcome.js'
/** What every task of the run shares: settings, model, policy, the work branch. */
interface TaskRun {
  config: RunConfig
  env: AgentEnvironment
  repoDir: string
  logDir: string
  loaded: LoadedTasks
  git: Git
  work: WorkBranch
  policy: PathPolicy
  steps: readonly PipelineStep[]
  model: ModelClient
  prompter: DraftPrompter
  budget: RunBudget
  masker: SecretMasker
  clock: PhaseClock
  logger: Logger
  /** How validation commands run (RunSession.commandRunner). */
  runner: CommandRunnerOptions
}

/**
 * A task file on the same engine as one plan: each pending task, in dependency order, becomes a
 * small plan that is drafted, applied, validated and committed on its own (a checkpoint: earlier
 * commits stay when a later task fails). `[P]` tasks ready together are drafted at once, then
 * applied, validated and committed one after another. A failed task's dependents are skipped;
 * the tasks that do not depend on it go on.
 */
export async function runTasks(config: RunConfig, env: AgentEnvironment): Promise<AgentRun> {
  const session = new RunSession(config, env)
  const { clock, budget, masker, logger, repoDir, logDir } = session.setup
  const statuses: TaskStatus[] = []
  const commits: Commit[] = []
  let loaded: LoadedTasks | undefined
  let work: WorkBranch | undefined
  let response: CodeAgentOutput
  try {
    await session.open()
    loaded = await clock.time('load', () =>
      loadTasks({
        taskFile: config.taskFile!,
        issue: config.issue,
        triageResult: config.triageResult,
        eventPath: env.eventPath,
        baseDir: env.cwd
      })
    )
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
    const policy = new PathPolicy({
      blockedGlobs: config.blockedPaths,
      allowProtected: config.allowProtectedPaths,
      protectedFiles: gitIncludedPaths(repoDir)
    })
    policy.assertAllowed(planned, 'plan')
    const commands = assertCommandsAllowed([], config.validationCommands, config.allowPlanCommands)
    const git = (session.git = await Git.open(repoDir))
    jailHooks(git, config, session.sandbox, env.vars)
    await assertRepoPaths(planned, policy, repoDir, git, 'plan')
    const model = session.modelClient()
    const prompter = session.draftPrompter(DEFAULT_STYLE)
    work = await WorkBranch.open(git, {
      branch: branchName,
      baseBranch: config.baseBranch,
      push: config.push && !config.dryRun,
      dryRun: config.dryRun,
      auth: pushAuth(config.githubToken, env.serverUrl, env.vars),
      journal: RunJournal.for(repoDir),
      plannedPaths: planned
    })
    await session.setupCommands()
    const run: TaskRun = {
      config,
      env,
      repoDir,
      logDir,
      loaded,
      git,
      work,
      policy,
      steps: pipelineSteps(config, commands),
      model,
      prompter,
      budget,
      masker,
      clock,
      logger,
      runner: session.commandRunner()
    }
    for (const batch of batches) {
      await runBatch(run, batch, statuses, commits)
    }
    const problems = await work.finish(commits.length > 0)
    problems.forEach((problem) => logger.warn(problem))
    response = outcome(statuses, commits, branchName)
  } catch (error) {
    const agentError = session.failure(error)
    if (work) {
      const problems = await work.finish(commits.length > 0)
      problems.forEach((problem) => logger.warn(`Work branch: ${problem}`))
    }
    if (statuses.length > 0) agentError.details = { ...agentError.details, tasks: statuses }
    response = { success: false, error: agentError, ...(commits.length ? { data: commits } : {}) }
  }
  if (!response.success && loaded) {
    await reportFailureOnIssue(
      config,
      env,
      parentInput(loaded, work?.branch ?? ''),
      response,
      masker,
      logger
    )
  }
  return session.finish(
    response,
    {
      tasks: statuses,
      tasks_committed: statuses.filter((task) => task.status === 'committed').length,
      tasks_failed: statuses.filter((task) => task.status === 'failed').length,
      tasks_skipped: statuses.filter((task) => task.status === 'skipped').length,
      attempts: statuses.reduce((sum, task) => sum + (task.attempts ?? 0), 0)
    },
    {},
    { branch: work?.branch ?? loaded?.file.branch ?? '', issueNumber: loaded?.issue.number }
  )
}

/** One batch: the `[P]` members drafted at once, then each applied, validated and committed. */
async function runBatch(
  run: TaskRun,
  batch: Task[],
  statuses: TaskStatus[],
  commits: Commit[]
): Promise<void> {
  const runnable: Task[] = []
  for (const task of batch) {
    const blocker = task.after.find((id) => {
      const status = statuses.find((s) => s.id === id)?.status
      return status === 'failed' || status === 'skipped'
    })
    if (blocker) {
      run.logger.warn(`${task.id} skipped: it depends on ${blocker}, which did not commit`)
      statuses.push({ ...statusOf(task, 'skipped'), blocked_by: blocker })
    } else runnable.push(task)
  }
  const files = new WorktreeFiles(run.repoDir)
  const prepared = runnable.map((task) => {
    const input = taskInput(task, {
      ...run.loaded,
      branch: `${run.work.branch}-${task.id.toLowerCase()}`,
      exists: (path) => files.read(path) !== null
    })
    const base = new Map(input.fix_plan.file_changes.map((c) => [c.path, files.read(c.path)]))
    return {
      task,
      input,
      base,
      log: new AttemptLog(join(run.logDir, task.id), run.masker.mask.bind(run.masker))
    }
  })
  if (prepared.length > 1) {
    run.logger.info(`Drafting ${prepared.map((p) => p.task.id).join(', ')} together ([P])`)
  }
  // Files of a batch are disjoint, so each first draft stays valid while the others commit.
  const firstDrafts =
    prepared.length > 1
      ? prepared.map((p) => {
          const drafted = run.clock.time('draft', () =>
            draftEdits(draftContext(run, p.input, p.base, p.log), 1, p.base, undefined)
          )
          drafted.catch(() => undefined)
          return drafted
        })
      : []
  for (const [index, p] of prepared.entries()) {
    const done = await runTask(run, p, firstDrafts[index])
    statuses.push(done.status)
    commits.push(...done.commits)
  }
}

async function runTask(
  run: TaskRun,
  p: { task: Task; input: CodeAgentInput; base: Map<string, string | null>; log: AttemptLog },
  firstDraft: Promise<Drafted> | undefined
): Promise<{ status: TaskStatus; commits: Commit[] }> {
  const { task, input } = p
  const { config, logger } = run
  logger.info(`${task.id}: ${task.description}`)
  let branch: ChangeBranch | undefined
  let attempts = 0
  try {
    branch = await ChangeBranch.prepare(run.git, {
      branch: input.fix_plan.branch_name,
      baseBranch: run.work.head,
      push: false,
      plannedPaths: input.fix_plan.file_changes.map((change) => change.path)
    })
    await branch.create()
    const ctx = draftContext(run, input, p.base, p.log)
    const attempted = await attemptChange({
      ...ctx,
      drafter: firstDraft
        ? (draftCtx, attempt, current, repair) =>
            attempt === 1
              ? firstDraft
              : draftEdits({ ...draftCtx, drafter: undefined }, attempt, current, repair)
        : undefined,
      steps: run.steps,
      retryFlaky: config.retryFlaky,
      keepPreexisting: config.onPreexistingFailure === 'commit',
      maxRepairs: config.maxRepairs,
      runner: sandboxedCommands(run.runner),
      masker: run.masker,
      budget: run.budget,
      branch,
      clock: run.clock,
      unicodeTextPaths: config.unicodeTextPaths
    })
    attempts = attempted.stats.attempts
    if (!attempted.ok) throw attempted.error
    const green = attempted.change
    const made = await commitChange(
      {
        config,
        input,
        git: run.git,
        branch,
        model: run.model,
        masker: run.masker,
        clock: run.clock,
        logger,
        onSecret: run.env.onSecret,
        task: true,
        runUrl: runUrl(run.env),
        budget: run.budget
      },
      green
    )
    const commits = made.map((commit) => ({ ...commit, branch: run.work.branch }))
    await run.work.checkpoint(input.fix_plan.branch_name)
    logger.info(`${task.id} committed: ${commits.map((c) => c.sha.slice(0, 12)).join(', ')}`)
    const sha = commits[commits.length - 1]?.sha
    return { status: { ...statusOf(task, 'committed'), sha, attempts }, commits }
  } catch (error) {
    const agentError: AgentError = withinTimeLimit(toAgentError(error), run.budget)
    logger.warn(`${task.id} failed: ${agentError.code}: ${agentError.message}`)
    if (branch) {
      const problems = await branch.rollback()
      problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
    }
    // A spent budget or a broken work branch stops the whole run, not just this task.
    if (
      ['TIMEOUT', 'TOKEN_BUDGET_EXCEEDED', 'GIT_CONFLICT', 'PERMISSION_DENIED'].includes(
        agentError.code
      )
    ) {
      throw error
    }
    const status: TaskStatus = {
      ...statusOf(task, 'failed'),
      attempts,
      error: { code: agentError.code, message: agentError.message }
    }
    return { status, commits: [] }
  }
}

function draftContext(
  run: TaskRun,
  input: CodeAgentInput,
  base: ReadonlyMap<string, string | null>,
  log: AttemptLog
): DraftContext {
  return {
    input,
    format: resolveEditFormat(run.config.editFormat, run.config.model),
    formatFor: (content) => resolveEditFormat(run.config.editFormat, run.config.model, content),
    style: DEFAULT_STYLE,
    base,
    concurrency: run.config.concurrency,
    model: run.model,
    log,
    logger: run.logger,
    policy: run.policy,
    prompter: run.prompter
  }
}
