import type { RunConfig } from '../config.js'
import {
  InvalidInputError,
  issueSchema,
  triageResultSchema,
  type CodeAgentInput,
  type FixPlan,
  type Issue
} from '../contract/index.js'
import { Git } from '../git/index.js'
import { issueFromEvent, readStructured, validate } from '../inputs/index.js'
import type { ModelClient } from '../model/index.js'
import type { PathPolicy } from '../policy/index.js'
import { findCandidates } from './candidates.js'
import { fetchIssue } from './fetch-issue.js'
import { planFix } from './plan-fix.js'
import { RepoInstructions } from './repo-instructions.js'
import { searchTerms } from './search-terms.js'

interface PlanningContext {
  repoDir: string
  /** Where input files are named from (the entry's working folder). */
  cwd: string
  policy: PathPolicy
  model: () => ModelClient
  logger: { info(message: string): void; warn(message: string): void }
  /** Where `issue-number` is fetched from (GITHUB_REPOSITORY, GITHUB_API_URL). */
  github: { repository?: string; apiUrl: string }
}

const generated = new WeakSet<FixPlan>()
/** The instruction files the planning prompt carried, by the plan it gave. */
const planInstructions = new WeakMap<FixPlan, string[]>()

/** Plan-less mode: no `fix-plan`, no `agent-input` (and no other source of a plan). */
export function needsPlan(config: RunConfig): boolean {
  return !config.fixPlan && !config.agentInput
}

/** True for a plan Patchsmith wrote itself in this run. */
export function generatedPlan(input: CodeAgentInput | undefined): boolean {
  return input !== undefined && generated.has(input.fix_plan)
}

/** The instruction files the prompt that wrote this run's plan carried (none: []). */
export function planInstructionFiles(input: CodeAgentInput | undefined): string[] {
  return (input && planInstructions.get(input.fix_plan)) ?? []
}

/**
 * The input for an issue without a plan: the issue (file, `issue-number` from the API, or the
 * event), a search of the repository for what it names, and a plan the model writes over the
 * files found, validated as any plan is.
 */
export async function planlessInput(
  config: RunConfig,
  eventPath: string | undefined,
  ctx: PlanningContext
): Promise<CodeAgentInput> {
  const issue = await loadIssue(config, eventPath, ctx)
  const triage = config.triageResult
    ? readStructured(config.triageResult, 'triage-result', ctx.cwd)
    : {}
  const terms = searchTerms(`${issue.title}\n${issue.body}`)
  const git = await Git.open(ctx.repoDir)
  const { repo, candidates } = await findCandidates(git, ctx.policy, terms)
  if (candidates.length === 0) {
    throw new InvalidInputError(
      `No fix plan, and no file in the repository matches what issue #${issue.number} names ` +
        '(paths, identifiers such as `parseConfig`, quoted text): give a "fix-plan", or name the code in the issue.',
      { field: 'fix_plan', rule: 'no-candidates', terms }
    )
  }
  ctx.logger.info(
    `No fix plan: planning from ${candidates.length} candidate file(s): ` +
      candidates.map((c) => `${c.path} (${c.score})`).join(', ')
  )
  // The base as ChangeBranch will check it out: the base branch, else the commit checked out now.
  const instructions = config.repoInstructions
    ? await (await RepoInstructions.read(git, baseRevision(config.baseBranch), [])).block()
    : undefined
  git.objects.close()
  const { plan, rootCause } = await planFix({
    issue,
    candidates,
    repo,
    policy: ctx.policy,
    model: ctx.model(),
    instructions: instructions?.text
  })
  ctx.logger.info(`Root cause: ${rootCause}`)
  const planned = { ...plan, plan_steps: [`Root cause: ${rootCause}`, ...plan.plan_steps] }
  generated.add(planned)
  if (instructions) planInstructions.set(planned, instructions.files)
  return {
    issue,
    triage_result: validate(triageResultSchema(), triage, 'triage_result'),
    fix_plan: planned
  }
}

async function loadIssue(
  config: RunConfig,
  eventPath: string | undefined,
  ctx: PlanningContext
): Promise<Issue> {
  const raw = config.issue
    ? readStructured(config.issue, 'issue', ctx.cwd)
    : config.issueNumber
      ? await fetchIssue(config.issueNumber, {
          token: config.githubToken,
          repository: ctx.github.repository,
          apiUrl: ctx.github.apiUrl,
          warn: (message) => ctx.logger.warn(message)
        })
      : issueFromEvent(eventPath)
  return validate(issueSchema(), raw, 'issue')
}

function baseRevision(baseBranch: string | undefined): string {
  return baseBranch && /^[\w./-]+$/.test(baseBranch) ? baseBranch : 'HEAD'
}
