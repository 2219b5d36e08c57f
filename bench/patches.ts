/**
 * Patch-recovery benchmark: `npm run bench:patches -- FILE.jsonl [FILE.jsonl ...] [--json]
 * [--no-speed]`. Runs Patchsmith's applier and, on the same cases in the same run, `git apply`
 * (strict) and jsdiff `applyPatch` with fuzzFactor 2 as anchors. Corpora are read where given.
 */
import { performance } from 'node:perf_hooks'
import { APPLIERS } from './patches/appliers.js'
import { readCorpus } from './patches/corpus.js'
import { count, emptyTally, judge, type Tally, type Verdict } from './patches/score.js'
import { speedRows } from './patches/speed.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const verbose = args.includes('--verbose')
const speedOnly = args.includes('--speed')
const corpora = args.filter((arg) => !arg.startsWith('--'))
if (corpora.length === 0 && !speedOnly) {
  console.error(
    'usage: npm run bench:patches -- FILE.jsonl [FILE.jsonl ...] [--json] [--no-speed] [--speed] [--verbose]'
  )
  process.exit(2)
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)} %`

for (const corpus of corpora) {
  const cases = readCorpus(corpus)
  const tallies: Tally[] = []
  // label → applier → [right, cases]
  const byLabel = new Map<string, Map<string, [number, number]>>()
  const misses: string[] = []
  for (const applier of APPLIERS) {
    const tally = emptyTally(corpus, applier.name)
    for (const testCase of cases) {
      const start = performance.now()
      const outcome = applier.apply(testCase)
      tally.ms += performance.now() - start
      const verdict: Verdict = judge(testCase, outcome)
      count(tally, testCase, verdict)
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
