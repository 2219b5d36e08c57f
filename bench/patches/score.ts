import type { Outcome } from './appliers.js'
import type { BenchCase } from './corpus.js'

/** One applier's figures on one corpus; the keys are the `--json` keys. */
export interface Tally {
  corpus: string
  applier: string
  cases: number
  to_apply: number
  recovered: number
  to_refuse: number
  refused_right: number
  misapplied: number
  applied: number
  refused: number
  /** Raw replies only: applied results tree-sitter finds broken (a file that parsed before). */
  broken_gate: number
  /** Raw replies only: applied results the language's own parser judged, and found broken. */
  judged_own: number
  broken_own: number
  ms: number
}

export type Verdict =
  'recovered' | 'refused-right' | 'misapplied' | 'missed' | 'applied' | 'refused'

/**
 * Recovered: the files after equal `expected`. Refused-right: `expected` is null and nothing was
 * written. Misapplied: anything else written where the truth is known. Missed: a case to apply
 * that was refused. Cases without `expected` are only applied or refused.
 */
export function judge(testCase: BenchCase, outcome: Outcome): Verdict {
  const wrote = !outcome.refused && changed(testCase.files, outcome.files)
  if (!testCase.hasExpected) return wrote ? 'applied' : 'refused'
  if (testCase.expected === null || testCase.expected === undefined)
    return wrote ? 'misapplied' : 'refused-right'
  if (!wrote) return 'missed'
  return sameFiles(outcome.refused ? {} : outcome.files, {
    ...testCase.files,
    ...testCase.expected
  })
    ? 'recovered'
    : 'misapplied'
}

function changed(before: Record<string, string | null>, after: Record<string, string | null>) {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)])
  return [...paths].some((path) => (before[path] ?? null) !== (after[path] ?? null))
}

function sameFiles(a: Record<string, string | null>, b: Record<string, string | null>) {
  return !changed(a, b)
}

export function emptyTally(corpus: string, applier: string): Tally {
  return {
    corpus,
    applier,
    cases: 0,
    to_apply: 0,
    recovered: 0,
    to_refuse: 0,
    refused_right: 0,
    misapplied: 0,
    applied: 0,
    refused: 0,
    broken_gate: 0,
    judged_own: 0,
    broken_own: 0,
    ms: 0
  }
}

export function count(tally: Tally, testCase: BenchCase, verdict: Verdict): void {
  tally.cases++
  if (testCase.hasExpected && testCase.expected) tally.to_apply++
  if (testCase.hasExpected && !testCase.expected) tally.to_refuse++
  if (verdict === 'recovered') tally.recovered++
  if (verdict === 'refused-right') tally.refused_right++
  if (verdict === 'misapplied') tally.misapplied++
  const wrote = verdict === 'recovered' || verdict === 'misapplied' || verdict === 'applied'
  if (wrote) tally.applied++
  else tally.refused++
}
