import type { RunConfig } from '../config.js'
import { InvalidInputError, type CodeAgentInput } from '../contract/index.js'
import { ChangeBranch } from '../change/index.js'
import { loadAgentInput } from '../inputs/index.js'
import type { ModelClient } from '../model/index.js'
import { fetchIssue, needsPlan, planlessInput } from '../planning/index.js'
import { assertCommandsAllowed, type PathPolicy } from '../policy/index.js'
import { stepCommandList } from '../validation/index.js'
import type { AgentEnvironment } from './entry.js'
import type { ModeInput, RunMode } from './mode-seams.js'
import type { Logger, PhaseClock, RunnerFacts } from '../run/index.js'
import {
  branchGuards,
  guardPlannedFiles,
  openRepository,
  workspacePolicy,
  WorktreeFiles,
  type Git
} from './workspace.js'

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
  const policy = workspacePolicy(config, repoDir)
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
  const { input, baseBranch = config.baseBranch, about, approved, protectedBranches = [] } = loaded
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
  const git = await openRepository(repoDir, logger)
  // The run's session ends the object reader; a refusal here comes before it has the Git.
  try {
    const branch = await guardPlannedFiles(git, { changes: plan.file_changes, base }, policy, () =>
      ChangeBranch.prepare(git, {
        branch: plan.branch_name,
        baseBranch,
        push: config.push && !config.dryRun,
        keepStart: facts.unpushedOnOwnBranch === true && !config.dryRun,
        handOffBranch: sources.handOffBranch,
        publishBase: sources.pushesBase,
        plannedPaths: plan.file_changes.map((change) => change.path),
        untracked: !sources.overlays,
        ...branchGuards(config, facts, logger, {
          repoDir,
          publishes: config.push || sources.pushesBase === true,
          protectedBranches
        })
      })
    )
    return { input, policy, commands, base, git, branch, approved }
  } catch (error) {
    git.objects.close()
    throw error
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
