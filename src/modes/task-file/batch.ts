import { join } from 'node:path'
import { toAgentError, type CodeAgentInput, type Commit } from '../../contract/index.js'
import { ChangeBranch, type WorkBranch } from '../../change/index.js'
import { taskInput as taskPlan, type LoadedTasks, type Task } from '../../inputs/tasks/index.js'
import { DEFAULT_STYLE, type DraftPrompter } from '../../model/index.js'
import type { PathPolicy } from '../../policy/index.js'
import { AttemptLog } from '../../report/index.js'
import { attemptChange, commitChange, draftEdits, type Drafted } from '../../agent/index.js'
import {
  withinTimeLimit,
  WorktreeFiles,
  type DraftParts,
  type Git,
  type RunContext
} from '../../engine/index.js'
import { statusOf, type TaskStatus } from './outcome.js'

/** What every task of the run shares beside the run's context: the tasks, the work branch. */
export interface TaskRun {
  ctx: RunContext
  loaded: LoadedTasks
  git: Git
  work: WorkBranch
  policy: PathPolicy
  /** The validation commands, each one trusted. */
  commands: string[]
  prompter: DraftPrompter
}

interface PreparedTask {
  task: Task
  input: CodeAgentInput
  draft: DraftParts
}

/** A spent budget or a broken work branch stops the whole run, not just this task. */
const STOPS_THE_RUN = new Set([
  'TIMEOUT',
  'TOKEN_BUDGET_EXCEEDED',
  'GIT_CONFLICT',
  'PERMISSION_DENIED'
])

/** One batch: the `[P]` members drafted at once, then each applied, validated and committed. */
export async function runBatch(
  run: TaskRun,
  batch: Task[],
  statuses: TaskStatus[],
  commits: Commit[]
): Promise<void> {
  const { logger, clock } = run.ctx.session
  const runnable: Task[] = []
  for (const task of batch) {
    const blocker = task.after.find((id) => {
      const status = statuses.find((s) => s.id === id)?.status
      return status === 'failed' || status === 'skipped'
    })
    if (blocker) {
      logger.warn(`${task.id} skipped: it depends on ${blocker}, which did not commit`)
      statuses.push({ ...statusOf(task, 'skipped'), blocked_by: blocker })
    } else runnable.push(task)
  }
  const files = new WorktreeFiles(run.ctx.session.repoDir)
  const prepared = runnable.map((task) => prepareTask(run, task, files))
  if (prepared.length > 1) {
    logger.info(`Drafting ${prepared.map((p) => p.task.id).join(', ')} together ([P])`)
  }
  // Files of a batch are disjoint, so each first draft stays valid while the others commit.
  const firstDrafts =
    prepared.length > 1
      ? prepared.map((p) => {
          const draft = run.ctx.draftContext(p.draft)
          const drafted = clock.time('draft', () => draftEdits(draft, 1, draft.base, undefined))
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

/** A task's plan, its files as they are now and its log: what its drafts are made from. */
function prepareTask(run: TaskRun, task: Task, files: WorktreeFiles): PreparedTask {
  const { ctx } = run
  const input = taskInput(run, task, files)
  const base = new Map(input.fix_plan.file_changes.map((c) => [c.path, files.read(c.path)]))
  const log = new AttemptLog(join(ctx.session.logDir, task.id), (text) =>
    ctx.session.masker.mask(text)
  )
  const draft: DraftParts = {
    input,
    base,
    log,
    policy: run.policy,
    style: DEFAULT_STYLE,
    prompter: run.prompter,
    drafter: undefined
  }
  return { task, input, draft }
}

async function runTask(
  run: TaskRun,
  p: PreparedTask,
  firstDraft: Promise<Drafted> | undefined
): Promise<{ status: TaskStatus; commits: Commit[] }> {
  const { task, input } = p
  const { ctx } = run
  const { logger, budget } = ctx.session
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
    const settings = ctx.attemptSettings({ ...p.draft, branch, commands: run.commands })
    const attempted = await attemptChange({
      ...settings,
      drafter: firstDraft
        ? (draftCtx, attempt, current, repair) =>
            attempt === 1
              ? firstDraft
              : draftEdits({ ...draftCtx, drafter: undefined }, attempt, current, repair)
        : undefined
    })
    attempts = attempted.stats.attempts
    if (!attempted.ok) throw attempted.error
    const made = await commitChange(
      ctx.finishContext({ input, git: run.git, branch, task: true }, settings),
      attempted.change
    )
    // commit-signing: github: the work branch holds the API's verified commits, same trees.
    const published = await run.work.checkpoint(input.fix_plan.branch_name)
    const commits = made.map((commit) => ({
      ...commit,
      sha: published?.get(commit.sha) ?? commit.sha,
      branch: run.work.branch
    }))
    logger.info(`${task.id} committed: ${commits.map((c) => c.sha.slice(0, 12)).join(', ')}`)
    const sha = commits[commits.length - 1]?.sha
    return { status: { ...statusOf(task, 'committed'), sha, attempts }, commits }
  } catch (error) {
    const agentError = withinTimeLimit(toAgentError(error), budget)
    logger.warn(`${task.id} failed: ${agentError.code}: ${agentError.message}`)
    if (branch) {
      const problems = await branch.rollback()
      problems.forEach((problem) => logger.warn(`Rollback: ${problem}`))
    }
    if (STOPS_THE_RUN.has(agentError.code)) throw error
    const status: TaskStatus = {
      ...statusOf(task, 'failed'),
      attempts,
      error: { code: agentError.code, message: agentError.message }
    }
    return { status, commits: [] }
  }
}

function taskInput(run: TaskRun, task: Task, files: WorktreeFiles): CodeAgentInput {
  return taskPlan(task, {
    ...run.loaded,
    branch: `${run.work.branch}-${task.id.toLowerCase()}`,
    exists: (path) => files.read(path) !== null
  })
}
