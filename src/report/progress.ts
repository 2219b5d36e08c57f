import { LiveComment, type GitHubClientOptions } from '../github/index.js'
import type { CodeAgentOutput } from '../contract/index.js'
import { failureComment } from './failure-comment.js'
import { code, inert, table } from './markdown.js'
import { costLine, filesLine, proofTable } from './outcome-text.js'
import { planComment } from './plan-comment.js'

/** The events a person starts a run from: the comment answers them where they asked. */
const ASKED_FROM = new Set([
  'issues',
  'issue_comment',
  'pull_request_review',
  'pull_request_review_comment'
])
/** Run by hand (Actions → Run workflow): the comment goes on the issue the inputs name. */
const BY_HAND = 'workflow_dispatch'

const STAGES = ['Planning', 'Drafting', 'Validating', 'Committing', 'Pushing'] as const
type Stage = (typeof STAGES)[number]
const STAGE_OF: Record<string, Stage | undefined> = {
  load: 'Planning',
  draft: 'Drafting',
  validate: 'Validating',
  commit: 'Committing',
  push: 'Pushing'
}

interface ProgressOptions {
  enabled: boolean
  dryRun: boolean
  token: string
  repository?: string
  /** GITHUB_EVENT_NAME and the event's payload. */
  eventName?: string
  event?: unknown
  /** The issue the run's inputs name: where a run started by hand (`workflow_dispatch`) reports. */
  inputIssue?: number
  runId?: string
  /** GITHUB_RUN_ATTEMPT: above 1, the comment of the first attempt is found and edited. */
  runAttempt?: string
  runUrl?: string
  client?: GitHubClientOptions
  mask: (text: string) => string
  warn: (message: string) => void
}

/**
 * The run's one comment on the issue or pull request it was asked from (for a run started by
 * hand, on the issue it works on): posted at the start with the run's link, edited when the
 * phase changes, ending with the outcome. Undefined when off, in a dry run, without a token, or
 * when no person asked (a schedule, a push).
 */
export function progressComment(options: ProgressOptions): ProgressComment | undefined {
  if (!options.enabled || options.dryRun || !options.token || !options.repository) return
  const payload = (options.event ?? {}) as {
    issue?: { number?: unknown }
    pull_request?: { number?: unknown }
  }
  const number =
    options.eventName === BY_HAND
      ? options.inputIssue
      : options.eventName && ASKED_FROM.has(options.eventName)
        ? (payload.issue?.number ?? payload.pull_request?.number)
        : undefined
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) return
  return new ProgressComment(options, number)
}

export class ProgressComment {
  private readonly comment: LiveComment
  private stage?: Stage
  private drafts = 0

  constructor(
    private readonly options: ProgressOptions,
    readonly issueNumber: number
  ) {
    this.comment = new LiveComment({
      token: options.token,
      repository: options.repository!,
      issueNumber,
      marker: `<!-- patchsmith:progress run=${options.runId ?? 'local'} -->`,
      findExisting: Number(options.runAttempt ?? 1) > 1,
      client: options.client,
      warn: options.warn
    })
  }

  /** The comment exists (or is being written): the failure is told there, not in a second one. */
  get ownsIssueComment(): boolean {
    return !this.comment.problem
  }

  /** Posts the acknowledgement and waits for it: one request (two on a rerun). */
  async start(): Promise<void> {
    await this.comment.settle(this.body('Started'))
  }

  /** A phase of the clock began: one edit when what the comment says changes, none otherwise. */
  phase(name: string): void {
    if (name === 'draft') this.drafts++
    const stage = STAGE_OF[name]
    // Setup commands run under 'validate' before the first draft: still planning.
    if (!stage || (stage === 'Validating' && this.drafts === 0)) return
    this.stage = stage
    this.comment.show(this.body(this.detail(stage)))
  }

  /** The outcome as the comment's last state; waits for every edit. */
  async finish(response: CodeAgentOutput, branch = ''): Promise<void> {
    const body = response.awaiting_approval
      ? planComment(response.awaiting_approval, this.options.runUrl)
      : response.success
        ? this.success(response, branch)
        : response.outcome === 'budget-exhausted'
          ? this.waiting(response)
          : this.failure(response, branch)
    await this.comment.settle(this.options.mask(body))
  }

  private detail(stage: Stage): string {
    const repairs = Math.max(0, this.drafts - 1)
    if (stage === 'Drafting' && repairs > 0) return `Drafting (repair ${repairs})`
    if (stage === 'Validating') return `Validating (${repairs} repair${repairs === 1 ? '' : 's'})`
    return stage
  }

  private body(now: string): string {
    const reached = this.stage ? STAGES.indexOf(this.stage) : -1
    const lines = STAGES.map((stage, i) =>
      i < reached ? `- ✅ ${stage}` : i === reached ? `- ⏳ ${now}` : `- ⬜ ${stage}`
    )
    return this.options.mask(
      [
        '### 👀 Patchsmith is working on this',
        this.runLine(),
        lines.join('\n'),
        reached < 0 ? `_${now}: reading the plan…_` : ''
      ]
        .filter(Boolean)
        .join('\n\n')
    )
  }

  private runLine(): string {
    return this.options.runUrl ? `Follow the [workflow run](${this.options.runUrl}).` : ''
  }

  private success(response: CodeAgentOutput, branch: string): string {
    const commits = response.data ?? []
    const last = commits[commits.length - 1]
    const where = last?.branch || branch
    const rows = [
      ['Files', filesLine(commits)],
      ...(where ? [['Branch', `${code(where)}: the pull request is opened from it`]] : []),
      ['Cost', costLine(response.metrics)],
      ...(this.options.runUrl ? [['Run', `[logs and artifact](${this.options.runUrl})`]] : [])
    ]
    return [
      '### ✅ Patchsmith fixed this',
      table(['', ''], rows),
      '#### Proof',
      proofTable(last)
    ].join('\n\n')
  }

  /** Not started: the repository's rolling budget had no room (not a failure). */
  private waiting(response: CodeAgentOutput): string {
    const refused = response.rolling_budget?.refused
    return [
      '### ⏸️ Patchsmith did not start: the rolling budget is spent',
      refused ? inert(refused.message) : '',
      `Rerun the job after ${refused ? code(refused.frees_at) : 'the budget frees up'}.`,
      this.runLine()
    ]
      .filter(Boolean)
      .join('\n\n')
  }

  private failure(response: CodeAgentOutput, branch: string): string {
    const error = response.error ?? {
      code: 'INTERNAL_ERROR' as const,
      message: 'The run ended without a result.',
      recoverable: false
    }
    const rerun = error.details?.last_attempt
      ? 'Rerun the job with `resume: true` in `settings` to repair from the last attempt instead of drafting again.'
      : 'Rerun the job once the cause is fixed.'
    return [
      failureComment(error, { branch: branch || undefined, runUrl: this.options.runUrl }),
      `Cost: ${costLine(response.metrics)}`,
      rerun
    ].join('\n\n')
  }
}
