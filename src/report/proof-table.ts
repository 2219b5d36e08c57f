import type { CommandProof, Commit, ValidationResult, Verification } from '../contract/index.js'
import { cell, code, table } from './markdown.js'

const LISTED = 5
const ID_CHARS = 200

/**
 * The before/after table of a change (issue 26): per validation command, how it ended on the
 * base and after the change, and the tests that flipped. Markdown for the job summary, the
 * pull-request body and the progress comment. A result without `proof` (an older result, a
 * task run) falls back to what validation_results tell.
 */
export function renderProofTable(
  commit:
    | Pick<Commit, 'validation_results' | 'proof' | 'verification_passed' | 'verification'>
    | undefined
): string {
  const results = commit?.validation_results ?? []
  const verified = commit?.verification ? verificationText(commit.verification) : ''
  const commands = commandTable(commit, results)
  return verified ? `${verified}\n\n${commands}` : commands
}

/**
 * The verification in plain words, then the tests that flipped (the reproduction first): what
 * a reviewer reads before the commands. Ids come from test output: inline code, never Markdown.
 */
function verificationText(verification: Verification): string {
  const reason = cell(capitalised(verification.reason, verification.status))
  const line =
    verification.status === 'reproduced-and-fixed'
      ? `**Verified: reproduced and fixed.** ${reason}.`
      : verification.status === 'fixed-failing-test'
        ? `**Verified: a failing test now passes.** ${reason}.`
        : `**Unverified: ${reason}.**`
  if (verification.tests.length === 0) return line
  const rows = verification.tests.slice(0, LISTED * 4).map((test) => {
    const own = verification.reproduction && test === verification.tests[0] ? ' (reproduction)' : ''
    return [`${code(short(test.id))}${own}`, outcome(test.base), outcome(test.after)]
  })
  const more =
    verification.tests.length > rows.length
      ? `\n\n_and ${verification.tests.length - rows.length} more_`
      : ''
  return `${line}\n\n${table(['Test', 'Base', 'After'], rows)}${more}`
}

function capitalised(reason: string, status: Verification['status']): string {
  // "Unverified: the triage …" reads on; "Verified … The new test …" starts a sentence.
  const text = reason.replace(/\.$/, '')
  return status === 'unverified' ? text : `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`
}

function commandTable(
  commit: Pick<Commit, 'validation_results' | 'proof' | 'verification_passed'> | undefined,
  results: readonly ValidationResult[]
): string {
  if (!commit?.proof || commit.proof.length === 0) return resultsOnly(results)
  const rows = commit.proof.map((proof) => {
    const result = results.find((r) => r.command === proof.command)
    return [
      code(proof.command),
      outcome(proof.base),
      afterCell(proof, result),
      tests(proof.fixed),
      tests(proof.broken)
    ]
  })
  const unrelated = commit.proof.some((p) => p.unrelated.length > 0)
  const left = commit.proof.some((p) => p.after === 'failed' && p.unrelated.length === 0)
  const verdict = left
    ? '**A failure the change was to fix remains.**'
    : 'What still fails failed the same way on the base and is not part of the issue.'
  return [
    table(['Command', 'Base', 'After', 'Fixed (fail → pass)', 'Broken (pass → fail)'], rows),
    ...(unrelated || left ? [verdict] : [])
  ].join('\n\n')
}

function afterCell(proof: CommandProof, result: ValidationResult | undefined): string {
  const notes = [
    result?.flaky && 'flaky',
    result?.auto_fixed && 'auto-fixed',
    proof.unrelated.length > 0 && `unrelated, fails as on the base: ${list(proof.unrelated)}`
  ].filter(Boolean)
  const base = outcome(proof.after)
  return notes.length > 0 ? `${base} (${notes.join('; ')})` : base
}

function outcome(value: CommandProof['base']): string {
  return value === 'passed' ? '✅ passes' : value === 'failed' ? '❌ fails' : '— not run'
}

function tests(ids: readonly string[]): string {
  return ids.length === 0 ? '—' : list(ids)
}

/** Test ids, as inline code: they come from what the tests printed, never rendered as Markdown. */
function list(ids: readonly string[]): string {
  // A JUnit name can be a megabyte: each is shortened.
  const shown = ids
    .slice(0, LISTED)
    .map((id) => code(short(id)))
    .join(', ')
  return ids.length > LISTED ? `${shown} and ${ids.length - LISTED} more` : shown
}

function short(id: string): string {
  return id.length > ID_CHARS ? `${id.slice(0, ID_CHARS)}…` : id
}

function resultsOnly(results: readonly ValidationResult[]): string {
  if (results.length === 0) return '_No validation command ran._'
  const rows = results.map((result) => {
    const after = result.exit_code === 0 ? '✅ passes' : `❌ exits ${result.exit_code}`
    const base = result.preexisting ? '❌ fails too' : '—'
    const notes = [result.flaky && 'flaky', result.auto_fixed && 'auto-fixed'].filter(Boolean)
    return [code(result.command), base, notes.length > 0 ? `${after} (${notes.join(', ')})` : after]
  })
  return table(['Command', 'Base', 'After'], rows)
}
