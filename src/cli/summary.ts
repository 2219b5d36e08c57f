import type { CodeAgentOutput, Commit } from '../contract/index.js'
import { seconds } from './progress.js'

interface SummaryFacts {
  response: CodeAgentOutput
  /** The branch the run committed on, as the run reports it. */
  branch: string
  dryRun: boolean
  push: boolean
  elapsedMs: number
  /** Where the whole result went: its file, and stdout too with --json. */
  resultFile?: string
  /** The result went where no --output said: the repository's own default file. */
  defaultResult?: boolean
  json: boolean
}

/**
 * The few lines a person reads at the end of a run: the outcome, the commits (sha, branch,
 * subject), the files, what validation showed, and where the whole result JSON is.
 */
export function cliSummary(facts: SummaryFacts): string {
  const { response } = facts
  const took = seconds(facts.elapsedMs)
  const commits = response.data ?? []
  const refused = response.rolling_budget?.refused
  if (response.outcome === 'budget-exhausted' && refused)
    return `Not started (budget-exhausted): ${refused.message}\n  result: ${resultPlace(facts)}\n`
  const held = response.awaiting_approval
  const lines = [
    held?.not_posted
      ? `Plan ${held.plan_hash} awaiting approval (nothing changed) after ${took}, but not posted where it could be approved:`
      : held
        ? `Plan ${held.plan_hash} awaiting approval (nothing changed) after ${took}: approve with "${held.approve_command}"`
        : response.success
          ? `${facts.dryRun ? 'Validated (dry run: rolled back, nothing committed)' : `Committed ${where(facts)}`} in ${took}`
          : `Failed after ${took}: ${response.error?.code ?? 'INTERNAL_ERROR'}`
  ]
  if (held?.not_posted) lines.push(`  ${held.not_posted}`)
  if (!response.success && response.error) lines.push(`  ${firstLine(response.error.message)}`)
  for (const commit of commits)
    lines.push(`  ${commit.sha ? `${commit.sha.slice(0, 12)} ` : ''}${firstLine(commit.message)}`)
  const files = [...new Set(commits.flatMap((commit) => commit.files_changed))]
  if (files.length > 0) lines.push(`  files: ${files.join(', ')}`)
  const last = commits[commits.length - 1]
  const proven = last?.verification
  if (proven)
    lines.push(
      proven.status === 'unverified'
        ? `  Unverified: ${proven.reason}`
        : `  Verified (${proven.status}): ${proven.reason}`
    )
  const verified = verification(last)
  if (verified) lines.push(`  validation: ${verified}`)
  lines.push(`  result: ${resultPlace(facts)}`)
  return `${lines.join('\n')}\n`
}

function where(facts: SummaryFacts): string {
  return `on ${facts.branch}, ${facts.push ? 'pushed to origin' : 'not pushed'}`
}

/** Each validation command of the last commit: on the base, then after the change. */
function verification(commit: Commit | undefined): string {
  if (!commit) return ''
  if (commit.proof && commit.proof.length > 0)
    return commit.proof
      .map((proof) => {
        const base = proof.base === 'not-run' ? '' : `${proof.base} on the base, `
        return `\`${proof.command}\` ${base}${proof.after} after`
      })
      .join('; ')
  return commit.validation_results
    .map((result) => `\`${result.command}\` exit ${result.exit_code}`)
    .join('; ')
}

function resultPlace(facts: SummaryFacts): string {
  const file = facts.resultFile ?? 'not written'
  const own = facts.resultFile && facts.defaultResult ? "this repository's default; " : ''
  return facts.json ? `${file} (${own}and on stdout)` : `${file} (${own}--json prints it)`
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? ''
}
