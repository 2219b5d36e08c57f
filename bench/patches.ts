/**
 * Patch-recovery benchmark: `npm run bench:patches -- [FILE.jsonl[.gz] ...] [--json]
 * [--no-speed]` (no files: bench/corpora/ and ../shared/bench/, see `defaultCorpora`). Runs Patchsmith's applier (with its syntax gate) and, on the same cases in the
 * same run, `git apply` (strict), GNU `patch --fuzz=3` and jsdiff `applyPatch` with fuzzFactor 2
 * as anchors. Corpora are read where given. For a corpus without `expected` (raw model replies),
 * every applier's applied results are judged by tree-sitter and by the language's own parser.
 */
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { APPLIERS } from './patches/appliers.js'
import { readCorpus } from './patches/corpus.js'
import { brokenByGate, brokenByOwnParser } from './patches/judges.js'
import { count, emptyTally, judge, type Tally, type Verdict } from './patches/score.js'
import { speedRows } from './patches/speed.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const verbose = args.includes('--verbose')
const speedOnly = args.includes('--speed')
const given = args.filter((arg) => !arg.startsWith('--'))
const corpora = given.length > 0 || speedOnly ? given : defaultCorpora()
if (corpora.length === 0 && !speedOnly) {
  console.error(
    'usage: npm run bench:patches -- [FILE.jsonl[.gz] ...] [--json] [--no-speed] [--speed] [--verbose]'
  )
  process.exit(2)
}

/**
 * Without files: the corpora committed in bench/corpora/ (built by bench/corpus/build.ts), then
 * the shared ones in ../shared/bench/ when that folder is there (not on CI).
 */
function defaultCorpora(): string[] {
  const inFolder = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((name) => /\.jsonl(\.gz)?$/.test(name))
          .sort()
          .map((name) => join(dir, name))
      : []
  const bench = dirname(fileURLToPath(import.meta.url))
  return [...inFolder(join(bench, 'corpora')), ...inFolder(resolve('..', 'shared', 'bench'))]
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)} %`

for (const corpus of corpora) {
  const cases = readCorpus(corpus)
  const tallies: Tally[] = []
  // label → applier → [right, cases]
  const byLabel = new Map<string, Map<string, [number, number]>>()
  const misses: string[] = []
  const refusals = new Map<string, Map<string, number>>()
  for (const applier of APPLIERS) {
    const tally = emptyTally(corpus, applier.name)
    const reasons = new Map<string, number>()
    refusals.set(applier.name, reasons)
    for (const testCase of cases) {
      const start = performance.now()
      const outcome = await applier.apply(testCase)
      tally.ms += performance.now() - start
      const verdict: Verdict = judge(testCase, outcome)
      count(tally, testCase, verdict)
      if (outcome.refused) {
        const key = reasonKey(outcome.reason)
        reasons.set(key, (reasons.get(key) ?? 0) + 1)
      } else if (!testCase.hasExpected) {
        if (await brokenByGate(testCase.files, outcome.files)) tally.broken_gate++
        const own = brokenByOwnParser(testCase.files, outcome.files)
        if (own !== undefined) tally.judged_own++
        if (own) tally.broken_own++
      }
      const right = verdict === 'recovered' || verdict === 'refused-right'
      for (const label of testCase.mutations) {
        const row = byLabel.get(label) ?? new Map<string, [number, number]>()
        const cell = row.get(applier.name) ?? [0, 0]
        row.set(applier.name, [cell[0] + (right ? 1 : 0), cell[1] + 1])
        byLabel.set(label, row)
      }
      if (
        verbose &&
        applier.name === 'patchsmith' &&
        !right &&
        verdict !== 'applied' &&
        verdict !== 'refused'
      ) {
        const reason = outcome.refused ? outcome.reason : 'written'
        misses.push(`  ${testCase.id} ${verdict} (${reason}) [${testCase.mutations.join(', ')}]`)
      }
    }
    tally.ms = Math.round(tally.ms)
    tallies.push(tally)
  }
  if (json) {
    for (const tally of tallies) console.log(JSON.stringify(tally))
    continue
  }
  console.log(`\n${corpus}: ${cases.length} cases`)
  if (cases.every((testCase) => !testCase.hasExpected)) {
    printRaw(tallies, refusals)
    continue
  }
  console.log(
    table(
      [
        'applier',
        'cases',
        'to apply',
        'recovered',
        'to refuse',
        'refused right',
        'misapplied',
        'applied',
        'refused',
        'ms'
      ],
      tallies.map((t) => [
        t.applier,
        t.cases,
        t.to_apply,
        `${t.recovered} (${percent(t.recovered, t.to_apply)})`,
        t.to_refuse,
        `${t.refused_right} (${percent(t.refused_right, t.to_refuse)})`,
        t.misapplied,
        t.applied,
        t.refused,
        t.ms
      ])
    )
  )
  console.log('\nright (recovered or refused right) by mutation label:')
  console.log(
    table(
      ['label', 'cases', ...APPLIERS.map((a) => a.name)],
      [...byLabel]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([label, row]) => [
          label,
          row.get(APPLIERS[0]!.name)![1],
          ...APPLIERS.map((a) => {
            const [right, total] = row.get(a.name) ?? [0, 0]
            return `${right} (${percent(right, total)})`
          })
        ])
    )
  )
  if (verbose && misses.length > 0) console.log(`\npatchsmith misses:\n${misses.join('\n')}`)
}

if (!json && (speedOnly || !args.includes('--no-speed'))) {
  console.log('\nspeed (udiff reply to new contents: parse, locate, apply; 11 runs each):')
  console.log(
    table(
      ['reply', 'lines', 'hunks', 'median ms', 'fastest ms'],
      speedRows().map((row) => [
        row.label,
        row.lines,
        row.hunks,
        row.medianMs.toFixed(1),
        row.fastestMs.toFixed(1)
      ])
    )
  )
}

/** A corpus of raw replies: what landed, what was refused and why, what landed broken. */
function printRaw(tallies: readonly Tally[], refusals: ReadonlyMap<string, Map<string, number>>) {
  console.log(
    table(
      [
        'applier',
        'cases',
        'applied',
        'refused',
        'applied-but-broken (tree-sitter)',
        'broken (own parser) / judged',
        'ms'
      ],
      tallies.map((t) => [
        t.applier,
        t.cases,
        t.applied,
        t.refused,
        t.broken_gate,
        `${t.broken_own} / ${t.judged_own}`,
        t.ms
      ])
    )
  )
  for (const [applier, reasons] of refusals) {
    const rows = [...reasons].sort((a, b) => b[1] - a[1])
    if (rows.length === 0) continue
    console.log(`\nrefusals, ${applier}:`)
    console.log(table(['reason', 'replies'], rows.slice(0, 12)))
  }
}

/** A refusal reason without the paths and numbers that make every one different. */
function reasonKey(reason: string): string {
  return reason
    .replace(/^(error|patch): /, '')
    .replace(/\S*\/\S*/g, '<path>')
    .replace(/\d+/g, 'N')
    .slice(0, 60)
}

function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((row) => row.map(String))]
  const widths = head.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)))
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  return [
    line(cells[0]!),
    line(widths.map((w) => '-'.repeat(w))),
    ...cells.slice(1).map(line)
  ].join('\n')
}
