import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunConfig } from '../config.js'
import { InvalidInputError, type CodeAgentInput } from '../contract/index.js'
import { ChangeBranch } from '../change/index.js'
import { Git, WorktreeFiles, gitIncludedPaths, pushAuth } from '../git/index.js'
import { RunJournal } from '../run-state/index.js'
import { loadAgentInput } from '../inputs/index.js'
import type { ModelClient } from '../model/index.js'
import { fetchIssue, needsPlan, planlessInput } from '../planning/index.js'
import {
  PathPolicy,
  assertCommandsAllowed,
  assertPlainFiles,
  assertRepoPaths
} from '../policy/index.js'
import { stepCommandList } from '../validation/index.js'
import type { ModeInput, RunMode } from './run-mode.js'
import type { AgentEnvironment } from './session.js'
import { signingPublisher, type Logger, type PhaseClock, type RunnerFacts } from '../agent/index.js'

export interface PreparedRun {
  input: CodeAgentInput
  policy: PathPolicy
  /** The validation commands to run, each one trusted. */
  commands: string[]
  /** Contents of every planned file on the base (null: does not exist yet). */
  base: Map<string, string | null>
  git: Git
  branch: ChangeBranch
  /** ModeInput.approved: the approval the plan came with. */
  approved?: ModeInput['approved']
}

/** Load and guard: everything that may refuse the run before a model is asked or a file written. */
export async function loadAndGuard(
  config: RunConfig,
  repoDir: string,
  facts: RunnerFacts & Pick<AgentEnvironment, 'unpushedOnOwnBranch'>,
  clock: PhaseClock,
  logger: Logger,
  onInput: (input: CodeAgentInput) => void,
  sources: {
    loadInput?: RunMode['loadInput']
    /** RunMode.handOffBranch (default true). */
    handOffBranch?: boolean
    /** RunMode.pushesBase: the change publishes the base it is committed on. */
    pushesBase?: boolean
    model: () => ModelClient
    /** Validation runs on an overlay of the work tree: no untracked list is needed before it. */
    overlays?: boolean
  }
): Promise<PreparedRun> {
  assertRepository(repoDir)
  const policy = new PathPolicy({
    blockedGlobs: config.blockedPaths,
    allowProtected: config.allowProtectedPaths,
    protectedFiles: gitIncludedPaths(repoDir)
  })
  const { eventPath, repository, apiUrl, cwd } = facts
  const context = {
    repoDir,
    cwd,
    policy,
    model: sources.model,
    logger,
    github: { repository, apiUrl }
  }
  // Input files are named as the user sees them: from the current directory.
  const loaded = await clock.time('load', async (): Promise<ModeInput> =>
    sources.loadInput
      ? sources.loadInput(context)
      : {
          input: needsPlan(config)
            ? await planlessInput(config, eventPath, context)
            : loadAgentInput({
                ...config,
                issue: config.issue ?? (await issueByNumber(config, facts, logger)),
                eventPath,
                baseDir: cwd
              })
        }
  )
  const {
    input,
    baseBranch = config.baseBranch,
    about,
    approved,
    protectedBranches = []
  } = loaded
  onInput(input)
  const plan = input.fix_plan
  logger.info(
    `${about?.subject ?? `Issue #${input.issue.number}`}: ${plan.file_changes.length} planned file change(s) on ${about?.on ?? plan.branch_name}`
  )
  policy.assertAllowed(
    plan.file_changes.map((change) => change.path),
    'plan'
  )
  const commands = assertCommandsAllowed(
    plan.validation_commands,
    config.validationCommands,
    config.allowPlanCommands,
    stepCommandList(config)
  )
  const base = readPlannedFiles(new WorktreeFiles(repoDir), input)
  const git = await Git.open(repoDir)
  // The run's session ends the object reader; a refusal here comes before it has the Git.
  try {
    await reportGitConfig(git, logger)
    const paths = plan.file_changes.map((change) => change.path)
    // All only read; they run together, and their refusals are reported in this order.
    const [plain, checked, prepared] = await Promise.allSettled([
      assertPlainFiles(plan.file_changes, base, git),
      assertRepoPaths(paths, policy, repoDir, git, 'plan'),
      // A refusal while its options are made (signing without a token) is this one's rejection.
      (async () =>
        ChangeBranch.prepare(git, {
          branch: plan.branch_name,
          baseBranch,
          push: config.push && !config.dryRun,
          keepStart: facts.unpushedOnOwnBranch === true && !config.dryRun,
          handOffBranch: sources.handOffBranch,
          publishBase: sources.pushesBase,
          auth: pushAuth(config.githubToken, facts.serverUrl, facts.vars),
          plannedPaths: paths,
          untracked: !sources.overlays,
          journal: RunJournal.for(repoDir),
          protectedBranches: [...defaultBranchOf(eventPath), ...protectedBranches],
          publisher: signingPublisher(
            config,
            facts,
            logger,
            config.push || sources.pushesBase === true
          )
        }))()
    ])
    if (plain.status === 'rejected') throw plain.reason
    if (checked.status === 'rejected') throw checked.reason
    if (prepared.status === 'rejected') throw prepared.reason
    return { input, policy, commands, base, git, branch: prepared.value, approved }
  } catch (error) {
    git.objects.close()
    throw error
  }
}

/**
 * Said once at start: a token actions/checkout persisted in the repository's config, with the
 * fix, and the programs the config names, which Patchsmith's own git never runs.
 */
async function reportGitConfig(git: Git, logger: Logger): Promise<void> {
  const { credentials, programs } = await git.configReport()
  if (credentials.length > 0)
    logger.warn(
      `actions/checkout left the job's token in the repository's git config (${credentials.slice(0, 3).join(', ')}): set "persist-credentials: false" on the actions/checkout step. Patchsmith gives its own token to the push alone and keeps this one out of the sandbox.`
    )
  if (programs.length > 0)
    logger.info(
      `The repository's git config names programs (${programs.slice(0, 5).join(', ')}); Patchsmith's own git runs none of them.`
    )
}

/** The repository's default branch as the triggering event names it: never the plan's branch. */
function defaultBranchOf(eventPath: string | undefined): string[] {
  if (!eventPath) return []
  try {
    const event = JSON.parse(readFileSync(eventPath, 'utf8')) as {
      repository?: { default_branch?: unknown }
    }
    const name = event.repository?.default_branch
    return typeof name === 'string' && name ? [name] : []
  } catch {
    return []
  }
}

function readPlannedFiles(files: WorktreeFiles, input: CodeAgentInput): Map<string, string | null> {
  const contents = new Map<string, string | null>()
  input.fix_plan.file_changes.forEach((change, index) => {
    const content = files.read(change.path)
    const field = `fix_plan.file_changes[${index}].path`
    if (change.operation === 'CREATE' && content !== null) {
      throw new InvalidInputError(
        `Invalid ${field}: ${change.path} already exists, so it cannot be created.`,
        { field }
      )
    }
    if (change.operation !== 'CREATE' && content === null) {
      const verb = change.operation === 'DELETE' ? 'deleted' : 'modified'
      throw new InvalidInputError(
        `Invalid ${field}: ${change.path} does not exist, so it cannot be ${verb}.`,
        { field }
      )
    }
    contents.set(change.path, content)
  })
  return contents
}

/** With a plan, an issue number (`issue: 7`, `--issue 7`) is fetched from the API as it is without. */
async function issueByNumber(
  config: RunConfig,
  facts: RunnerFacts,
  logger: Logger
): Promise<string | undefined> {
  if (!config.issueNumber || config.agentInput) return undefined
  const issue = await fetchIssue(config.issueNumber, {
    token: config.githubToken,
    repository: facts.repository,
    apiUrl: facts.apiUrl,
    warn: (message) => logger.warn(message)
  })
  return JSON.stringify(issue)
}

/** A repository setting that names no checkout is bad input, not a missing planned file. */
function assertRepository(repoDir: string): void {
  if (existsSync(join(repoDir, '.git'))) return
  const what = existsSync(repoDir) ? 'is not a git repository' : 'does not exist'
  throw new InvalidInputError(
    `${repoDir} ${what}: point "repo" (CLI: --repo) at the checkout to change (actions/checkout's path), or run from inside it.`,
    { field: 'repo', rule: 'not-a-repository' }
  )
}
