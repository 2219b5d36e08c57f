import type { CodeAgentOutput, Commit, ValidationResult } from '../contract/index.js'
import { diffStat, statLine, type FileStat } from './diff-stat.js'
import { whatFailed } from './failure-comment.js'
import { formatUsd } from '../model/index.js'
import { cell, code, details, duration, fence, table, tail } from './markdown.js'
import { planComment } from './plan-comment.js'
import { renderProofTable } from './proof-table.js'
import { budgetExhaustedParts, rollingBudgetParts } from './budget-text.js'

interface SummaryContext {
  issueNumber?: number
  /** The branch was pushed (push: true); else the commit waits on the base for a PR step. */
  pushed?: boolean
  /** The branch the run started from, when known. */
  base?: string
}

// The step summary is refused above 1 MiB; the diff is the only part that can grow that much.
const MAX_DIFF_CHARS = 200_000
const MAX_OUTPUT_LINES = 60
const MAX_OUTPUT_CHARS = 8_000
const UNSANDBOXED =
  '> [!WARNING]\n> Validation commands ran without a sandbox, with the powers of this step. ' +
  'Install bubblewrap on the runner (or use a Linux runner with passwordless sudo), or set ' +
  '`sandbox: required` to refuse such runs.'

/**
 * The job summary: the outcome first, then what changed, how it was checked, what it cost, and
 * the diff folded away. Every piece of text that came from outside is escaped, so the result is
 * valid Markdown whatever a command printed.
 */
export function summaryMarkdown(response: CodeAgentOutput, context: SummaryContext = {}): string {
  const issue = context.issueNumber ? ` for #${context.issueNumber}` : ''
  const parts = response.awaiting_approval
    ? [planComment(response.awaiting_approval)]
    : response.success
      ? successParts(response.data ?? [], issue, context)
      : response.outcome === 'budget-exhausted'
        ? budgetExhaustedParts(response, issue)
        : failureParts(response, issue)
  if (response.metrics?.sandbox === 'none') parts.splice(1, 0, UNSANDBOXED)
  parts.push(...rollingBudgetParts(response))
  parts.push(...runParts(response.metrics ?? {}))
  return `${parts.join('\n\n')}\n`
}

function successParts(
  commits: readonly Commit[],
  issue: string,
  context: SummaryContext
): string[] {
  const last = commits[commits.length - 1]
  const dryRun = Boolean(last && !last.sha)
  const parts = [
    dryRun
      ? `## ✅ Patchsmith: validated${issue} (dry run, nothing committed)`
      : `## ✅ Patchsmith: committed${issue}`
  ]
  if (!last) return parts
  const diff = commits.map((commit) => commit.diff).join('')
  const files = diffStat(diff)
  const where = dryRun
    ? 'rolled back (dry run)'
    : context.pushed === false
      ? `not pushed: on ${context.base ? code(context.base) : 'the base branch'} for the pull-request step`
      : context.pushed
        ? 'pushed to origin'
        : ''
  const rows = [
    ['Branch', code(last.branch)],
    ...(where ? [['Where', where]] : []),
    ...commits.map((commit, i) => [
      commits.length > 1 ? `Commit ${i + 1}` : 'Commit',
      `${commit.sha ? code(commit.sha.slice(0, 12)) : '—'} ${cell(commit.message.split('\n')[0] ?? '')}`
    ]),
    ['Files', cell(statLine(files))]
  ]
  if (last.patch_id) rows.push(['Patch id', code(last.patch_id)])
  parts.push(table(['Outcome', ''], rows))
  parts.push('### Files', filesTable(files))
  parts.push(...validationParts(last.validation_results))
  if (last.proof) parts.push('### Proof', renderProofTable(last))
  if (last.root_cause) parts.push(`**Root cause:** ${cell(last.root_cause)}`)
  parts.push(diffParts(diff))
  return parts
}

function failureParts(response: CodeAgentOutput, issue: string): string[] {
  const error = response.error
  const errorCode = error?.code ?? 'UNKNOWN'
  const detail = (error?.details ?? {}) as Record<string, unknown>
  const parts = [`## ❌ Patchsmith: failed${issue} with ${code(errorCode)}`]
  parts.push(
    table(
      ['Outcome', ''],
      [
        ['What failed', cell(error ? whatFailed(error) : 'unknown')],
        ['Error code', code(errorCode)],
        ['Message', cell(error?.message ?? '')],
        ['Can a rerun help?', error?.recoverable ? 'yes' : 'no'],
        ['Repository', 'rolled back: nothing committed or pushed']
      ]
    )
  )
  const results = detail.validation_results
  if (Array.isArray(results)) parts.push(...validationParts(results as ValidationResult[]))
  const output = [detail.stderr, detail.stdout]
    .filter((text): text is string => typeof text === 'string' && text.trim().length > 0)
    .join('\n')
  if (output) {
    parts.push(details('Command output', fence(tail(output, MAX_OUTPUT_LINES, MAX_OUTPUT_CHARS))))
  }
  parts.push(...keptParts(detail.last_attempt))
  return parts
}

/** The work a stopped run kept (error.details.last_attempt): its diff, and how to go on from it. */
function keptParts(kept: unknown): string[] {
  const attempt = kept as { attempt?: number; validated?: boolean; diff?: string } | undefined
  if (typeof attempt?.diff !== 'string') return []
  const state = attempt.validated ? 'passed validation' : 'did not pass validation'
  return [
    '### Kept for a rerun',
    `Attempt ${attempt.attempt ?? '?'} ${state}; it is in the result as \`error.details.last_attempt\`, not committed. Rerun with \`resume: true\` (and \`artifact-run-id\` of this run) to repair from it instead of drafting again.`,
    diffParts(attempt.diff)
  ]
}

function filesTable(files: readonly FileStat[]): string {
  return table(
    ['File', 'Change', '+', '−'],
    files.map((file) => [code(file.path), file.status, String(file.added), String(file.removed)])
  )
}

function validationParts(results: readonly ValidationResult[]): string[] {
  if (results.length === 0) return ['### Validation', 'No validation commands ran.']
  const rows = results.map((result) => {
    const notes = [
      result.flaky ? 'flaky' : '',
      result.auto_fixed ? 'auto-fixed' : '',
      result.preexisting ? 'fails on the base too' : ''
    ].filter(Boolean)
    const outcome = result.exit_code === 0 ? '✅ passed' : '❌ failed'
    return [
      code(result.command),
      String(result.exit_code),
      duration(result.duration_ms),
      notes.length > 0 ? `${outcome} (${notes.join(', ')})` : outcome
    ]
  })
  return ['### Validation', table(['Command', 'Exit', 'Duration', 'Result'], rows)]
}

function runParts(metrics: Record<string, unknown>): string[] {
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined)
  const tokens = (metrics.tokens ?? {}) as Record<string, unknown>
  const prompt = number(tokens.prompt) ?? number(metrics.prompt_tokens)
  const completion = number(tokens.completion) ?? number(metrics.completion_tokens)
  const rows: string[][] = []
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined) rows.push([name, value])
  }
  add('Attempts', number(metrics.attempts)?.toString())
  add('Repairs', number(metrics.repairs)?.toString())
  add('Model calls', (number(tokens.calls) ?? number(metrics.model_calls))?.toString())
  if (prompt !== undefined || completion !== undefined) {
    const total = (prompt ?? 0) + (completion ?? 0)
    const cached = number(tokens.cached) ? `, of which ${tokens.cached} cached` : ''
    add('Tokens', `${total} (${prompt ?? 0} prompt${cached}, ${completion ?? 0} completion)`)
  }
  const cost = number((metrics.cost as { usd?: unknown } | undefined)?.usd)
  add('Cost', cost === undefined ? undefined : `$${formatUsd(cost)}`)
  add('Git processes', number(metrics.git_processes)?.toString())
  if (typeof metrics.sandbox === 'string') add('Sandbox', metrics.sandbox)
  if (metrics.validation_network === 'open')
    add('Validation network', 'open (commands could reach the network)')
  else if (typeof metrics.validation_network === 'string')
    add('Validation network', metrics.validation_network)
  const instructions = metrics.repo_instructions as { files?: unknown; cut?: unknown } | undefined
  if (Array.isArray(instructions?.files) && instructions.files.length > 0) {
    const cut = Array.isArray(instructions.cut) ? instructions.cut.map(String) : []
    const files = instructions.files.map((file) =>
      cut.includes(String(file)) ? `${code(String(file))} (cut)` : code(String(file))
    )
    add('Repository instructions', files.join(', '))
  }
  const ms = number(metrics.duration_ms)
  add('Duration', ms === undefined ? undefined : duration(ms))
  return rows.length > 0 ? ['### Run', table(['Measure', 'Value'], rows)] : []
}

function diffParts(diff: string): string {
  const lines = diff.split('\n').length - (diff.endsWith('\n') ? 1 : 0)
  const shown =
    diff.length > MAX_DIFF_CHARS
      ? `${diff.slice(0, MAX_DIFF_CHARS)}\n[… ${diff.length - MAX_DIFF_CHARS} more characters in the result file]\n`
      : diff
  return details(`Diff (${lines} line${lines === 1 ? '' : 's'})`, fence(shown, 'diff'))
}
