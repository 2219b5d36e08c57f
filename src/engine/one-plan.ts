import type { CodeAgentInput, CodeAgentOutput } from '../contract/index.js'
import type { ChangeBranch } from '../change/index.js'
import { EditorconfigRules } from '../editorconfig/index.js'
import { DEFAULT_STYLE } from '../model/index.js'
import {
  generatedPlan,
  minimalFix,
  planInstructionFiles,
  RepoInstructions
} from '../planning/index.js'
import { AttemptLog } from '../report/index.js'
import {
  attemptChange,
  commitChange,
  resumePoint,
  type AttemptStats,
  type GreenChange
} from '../agent/index.js'
import { approvalStep } from './plan-hold.js'
import { loadAndGuard } from './prepare.js'
import type { RunContext } from './run-context.js'
import type { PlanRun, RunMode } from './mode-seams.js'

/**
 * One plan, in one direction: load → guard → draft → apply → validate (→ repair) → commit →
 * push. The engine (engine.ts) catches, rolls back and reports around it.
 */
export class OnePlan implements PlanRun {
  input: CodeAgentInput | undefined
  private branch?: ChangeBranch
  private green?: GreenChange
  private stats?: AttemptStats
  private instructions?: RepoInstructions

  constructor(
    private readonly ctx: RunContext,
    private readonly loadInput?: RunMode['loadInput']
  ) {}

  get baseCommit(): string | undefined {
    return this.branch?.baseCommit
  }

  async run(): Promise<CodeAgentOutput> {
    const { ctx } = this
    const { config, env, session } = ctx
    const { clock, logger, repoDir, outputPath, logDir, masker } = ctx.session
    const prepared = await loadAndGuard(
      config,
      repoDir,
      env,
      clock,
      logger,
      (loaded) => {
        this.input = loaded
      },
      {
        loadInput: this.loadInput,
        handOffBranch: ctx.handOffBranch,
        pushesBase: ctx.pushesBase,
        model: () => ctx.model(),
        overlays: session.sandbox?.overlays ?? false
      }
    )
    this.branch = prepared.branch
    const git = (session.git = prepared.git)
    // Loaded and guarded, nothing changed yet: a plan that needs approval ends the run here.
    const held = await approvalStep(ctx, prepared)
    if (held) return held
    session.hooksFor(git)
    ctx.model()
    const style = prepared.input.repository_snapshot?.style_config ?? DEFAULT_STYLE
    const prompter = session.draftPrompter(prepared.input.repository_snapshot?.style_config)
    const resume = resumePoint(config.resume, outputPath, prepared.input, ctx.kept, (text) =>
      logger.info(text)
    )
    await prepared.branch.create()
    ctx.progress.persistTo(ctx.kept, prepared.input, prepared.branch.baseCommit)
    const paths = prepared.input.fix_plan.file_changes.map((change) => change.path)
    // From the base commit, before any draft: never what the model or another branch wrote.
    if (config.repoInstructions) {
      this.instructions = prompter.instructions = await RepoInstructions.read(
        git,
        prepared.branch.baseCommit,
        paths
      )
    }
    prompter.editorconfig = await EditorconfigRules.read(git, prepared.branch.baseCommit, paths)
    await session.setupCommands()
    if (config.setupCommands.length > 0) prepared.branch.forgetUntracked()
    const settings = ctx.attemptSettings({
      input: prepared.input,
      base: prepared.base,
      branch: prepared.branch,
      policy: prepared.policy,
      commands: prepared.commands,
      log: new AttemptLog(logDir, (text) => masker.mask(text)),
      style,
      prompter,
      progress: ctx.progress,
      resume
    })
    const attempted = await attemptChange(settings)
    this.stats = attempted.stats
    // A stop of the loop is the run's failure, with the statistics it gathered.
    if (!attempted.ok) throw attempted.error
    this.green = attempted.change
    const commits = await commitChange(
      ctx.finishContext({ input: prepared.input, git, branch: prepared.branch }, settings),
      this.green
    )
    return { success: true, data: commits }
  }

  stopped() {
    return this.stats ? { details: { stats: this.stats } } : {}
  }

  async rollback(): Promise<string[]> {
    return this.branch ? this.branch.rollback() : []
  }

  metrics(response: CodeAgentOutput) {
    const { stats, green, input } = this
    return {
      own: { attempts: stats?.attempts ?? attemptsOf(response), ...statsOf(stats) },
      after: {
        ...(green ? { placements: green.placements, minimal_fix: minimalFix(green.diff) } : {}),
        ...(generatedPlan(input) ? { plan_source: 'generated' } : {}),
        ...instructionMetrics(planInstructionFiles(input), this.instructions)
      }
    }
  }

  names() {
    return { branch: this.input?.fix_plan.branch_name ?? '', issueNumber: this.input?.issue.number }
  }
}

/** Repairs, retries by reason and why the loop stopped. */
function statsOf(stats: AttemptStats | undefined): Record<string, unknown> {
  if (!stats) return {}
  return { repairs: stats.repairs, retries: stats.retries, stop_reason: stats.stop_reason }
}

/** The instruction files some prompt carried (plan and drafts), and those cut to fit. */
function instructionMetrics(
  planned: readonly string[],
  instructions: RepoInstructions | undefined
): Record<string, unknown> {
  const files = [...new Set([...planned, ...(instructions?.used ?? [])])]
  if (files.length === 0) return {}
  const cut = instructions?.cut ?? []
  return { repo_instructions: { files, ...(cut.length > 0 ? { cut } : {}) } }
}

function attemptsOf(response: CodeAgentOutput): number {
  const attempts = response.error?.details?.attempts
  return typeof attempts === 'number' ? attempts : 0
}
