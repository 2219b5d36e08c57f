import type { CodeAgentOutput, Commit } from '../contract/index.js'
import { formatUsd } from '../model/index.js'
import { cell, code, fence, table } from './markdown.js'
import { renderProofTable } from './proof-table.js'

/** Base vs after per validation command: see renderProofTable. */
export function proofTable(commit: Parameters<typeof renderProofTable>[0]): string {
  return renderProofTable(commit)
}

/** "$0.0123 · 1,234 tokens (1,000 in, 234 out) · 2 model calls", from the result's metrics. */
export function costLine(metrics: CodeAgentOutput['metrics']): string {
  const m = (metrics ?? {}) as {
    tokens?: Record<string, unknown>
    cost?: { usd?: unknown }
  }
  const n = (key: string) => (typeof m.tokens?.[key] === 'number' ? (m.tokens[key] as number) : 0)
  const usd = typeof m.cost?.usd === 'number' ? `${formatUsd(m.cost.usd)} · ` : ''
  const calls = n('calls')
  return (
    `${usd}${grouped(n('total'))} tokens ` +
    `(${grouped(n('prompt'))} in, ${grouped(n('completion'))} out)` +
    ` · ${calls} model call${calls === 1 ? '' : 's'}`
  )
}

/**
 * 1234567 as "1,234,567", as toLocaleString('en-US') writes it. By hand for whole numbers:
 * the first Intl call of a process loads ICU's number data, about 20 ms of every run's CPU.
 */
function grouped(value: number): string {
  return Number.isSafeInteger(value)
    ? String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
    : value.toLocaleString('en-US')
}

/** The files the commits changed, as inline code. */
export function filesLine(commits: readonly Commit[]): string {
  const files = [...new Set(commits.flatMap((commit) => commit.files_changed))]
  return files.length > 0 ? files.map(code).join(', ') : '—'
}

const BODY_CHARS = 65_536
const CUT = '\n\n_[… cut: longer than GitHub allows; the job summary has it all]_'

interface PullRequestContext {
  issueNumber?: number
  issueTitle?: string
  runUrl?: string
  /** The plan's root cause and summary, when it gave them. */
  rootCause?: string
  why?: string
  /** The plan's steps: listed, as text, for the reviewer. */
  planSteps?: readonly unknown[]
}

const TEST_LINES = 60
const PLAN_STEPS = 20

/** The pull request's title and body for a green run: what, why, proof, cost, run, Fixes #N. */
export function pullRequestText(
  commits: readonly Commit[],
  metrics: CodeAgentOutput['metrics'],
  context: PullRequestContext
): { title: string; body: string } {
  const first = commits[0]
  const title = first?.message.split('\n')[0] ?? `Patchsmith: #${context.issueNumber ?? ''}`
  const last = commits[commits.length - 1]
  const issue = context.issueNumber ? `#${context.issueNumber}` : 'the issue'
  const parts = [
    '### What changed',
    commits.map((commit) => `- ${cell(commit.message.split('\n')[0] ?? '')}`).join('\n'),
    `Files: ${filesLine(commits)}`,
    '### Why',
    cell(context.why || (context.issueTitle ? `${issue}: ${context.issueTitle}` : issue))
  ]
  const rootCause = context.rootCause || last?.root_cause
  if (rootCause) parts.push('### Root cause', cell(rootCause))
  parts.push('### Proof', proofTable(last))
  const reproduction = last?.verification?.reproduction
  if (reproduction) {
    const lines = reproduction.content.split('\n')
    const shown = lines.slice(0, TEST_LINES).join('\n')
    const cut = lines.length > TEST_LINES ? `\n\n_[… ${lines.length - TEST_LINES} more lines]_` : ''
    parts.push(
      '### Reproduction',
      `${code(reproduction.path)}, written before the fix and run on the base by ${code(reproduction.command)}` +
        (reproduction.committed
          ? ' (committed with the fix):'
          : ' (kept out of the commit, `reproduction: evidence`):'),
      `${fence(shown, languageOf(reproduction.path))}${cut}`
    )
  }
  const steps = (context.planSteps ?? []).slice(0, PLAN_STEPS)
  if (steps.length > 0)
    parts.push(
      '### Plan',
      steps
        .map(
          (step, i) => `${i + 1}. ${cell(typeof step === 'string' ? step : JSON.stringify(step))}`
        )
        .join('\n')
    )
  parts.push(
    '### Asking for changes',
    'Request changes in a review (or comment `/patchsmith` on a review thread): where the repository runs Patchsmith on reviews, each open thread becomes a follow-up commit on this branch. Otherwise push to the branch yourself.'
  )
  parts.push(
    table(
      ['', ''],
      [
        ['Cost', costLine(metrics)],
        ...(context.runUrl ? [['Run', `[logs and artifact](${context.runUrl})`]] : [])
      ]
    )
  )
  const fixes = context.issueNumber ? `\n\nFixes #${context.issueNumber}` : ''
  let body = parts.join('\n\n')
  // GitHub refuses a pull-request body over 65 536 characters; "Fixes #N" stays at the end.
  if (body.length + fixes.length > BODY_CHARS - 1) {
    body = `${body.slice(0, BODY_CHARS - 1 - fixes.length - CUT.length)}${CUT}`
  }
  return { title, body: `${body}${fixes}\n` }
}

function languageOf(path: string): string {
  const ext = /\.(\w+)$/.exec(path)?.[1] ?? ''
  const known: Record<string, string> = {
    py: 'python',
    js: 'js',
    mjs: 'js',
    cjs: 'js',
    ts: 'ts',
    go: 'go',
    rs: 'rust',
    java: 'java',
    kt: 'kotlin'
  }
  return known[ext] ?? 'text'
}
