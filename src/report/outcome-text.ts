import type { CodeAgentOutput, Commit, ValidationResult } from '../contract/index.js'
import { formatUsd } from '../model/index.js'
import { cell, code, table } from './markdown.js'

/**
 * Base vs after per validation command. The result records the run after the change; on the
 * base, a command is known to fail only when it was kept as preexisting.
 */
export function proofTable(results: readonly ValidationResult[]): string {
  if (results.length === 0) return '_No validation command ran._'
  const rows = results.map((result) => {
    const after = result.exit_code === 0 ? '✅ passes' : `❌ exits ${result.exit_code}`
    const base = result.preexisting ? `❌ fails too` : '—'
    const notes = [result.flaky && 'flaky', result.auto_fixed && 'auto-fixed'].filter(Boolean)
    return [code(result.command), base, notes.length > 0 ? `${after} (${notes.join(', ')})` : after]
  })
  return table(['Command', 'Base', 'After'], rows)
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
    `${usd}${n('total').toLocaleString('en-US')} tokens ` +
    `(${n('prompt').toLocaleString('en-US')} in, ${n('completion').toLocaleString('en-US')} out)` +
    ` · ${calls} model call${calls === 1 ? '' : 's'}`
  )
}

/** The files the commits changed, as inline code. */
export function filesLine(commits: readonly Commit[]): string {
  const files = [...new Set(commits.flatMap((commit) => commit.files_changed))]
  return files.length > 0 ? files.map(code).join(', ') : '—'
}

export interface PullRequestContext {
  issueNumber?: number
  issueTitle?: string
  runUrl?: string
  /** The plan's root cause and summary, when it gave them. */
  rootCause?: string
  why?: string
}

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
  if (context.rootCause) parts.push('### Root cause', cell(context.rootCause))
  parts.push('### Proof', proofTable(last?.validation_results ?? []))
  parts.push(
    table(
      ['', ''],
      [
        ['Cost', costLine(metrics)],
        ...(context.runUrl ? [['Run', `[logs and artifact](${context.runUrl})`]] : [])
      ]
    )
  )
  if (context.issueNumber) parts.push(`Fixes #${context.issueNumber}`)
  return { title, body: `${parts.join('\n\n')}\n` }
}
