/**
 * bench:scale — a large file with many hunks: Patchsmith's udiff applier (the agent's own entry:
 * `readReply` and `editFromRead`) against `git apply` on the same diff in a temp repository, in
 * the same run. 10 000 and 100 000 lines, 100 hunks each; the anchor is at most 20× `git apply`
 * at 100 000 lines, and time per line at 100 000 lines within 2× of that at 10 000 (linear).
 * The syntax gate and the canonical diff the agent also runs on the result are timed beside it
 * (the gate is one tree-sitter parse of the new contents; no anchor of its own).
 * `npm run bench:scale -- [--runs N]`
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import {
  assertStillParses,
  editFromRead,
  readReply,
  renderDiff,
  type DraftedEdit
} from '../src/edits/index.js'
import { median, printFigure } from './lib/report.js'

const runsAt = process.argv.indexOf('--runs')
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 5
const PATH = 'src/big.ts'
const HUNKS = 100

/** A file of small functions, so `}`, `return 0` and blank lines repeat as in real code. */
function sourceLines(count: number): string[] {
  const lines: string[] = []
  for (let i = 0; lines.length < count; i++) {
    lines.push(
      `export function step${i}(a: number, b: number): number {`,
      `  const total${i} = a + b`,
      `  if (total${i} > ${i}) {`,
      `    return total${i}`,
      '  }',
      '  return 0',
      '}',
      ''
    )
  }
  return lines.slice(0, count)
}

/** A git-style diff changing one line in each of `hunks` functions spread evenly, 3 lines of context. */
function diffOf(lines: readonly string[], hunks: number): string {
  const out = [`diff --git a/${PATH} b/${PATH}`, `--- a/${PATH}`, `+++ b/${PATH}`]
  const every = Math.floor(lines.length / 8 / hunks) * 8
  for (let h = 0; h < hunks; h++) {
    const at = h * every + 8 // the function's `const` line is at + 1; context from at - 2
    const from = at - 2
    out.push(`@@ -${from + 1},7 +${from + 1},7 @@`)
    for (let k = from; k < from + 7; k++) {
      if (k === at + 1) out.push(`-${lines[k]}`, `+${lines[k]!.replace('a + b', 'a * b')}`)
      else out.push(` ${lines[k]}`)
    }
  }
  return out.join('\n') + '\n'
}

interface Timed {
  gitMs: number
  applyMs: number
  gateMs: number
  renderMs: number
}

async function measure(lineCount: number, repo: string): Promise<Timed> {
  const lines = sourceLines(lineCount)
  const content = lines.join('\n') + '\n'
  const diff = diffOf(lines, HUNKS)
  const patchFile = join(repo, '..', 'scale.diff')
  writeFileSync(patchFile, diff)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' })
  const times: Record<keyof Timed, number[]> = { gitMs: [], applyMs: [], gateMs: [], renderMs: [] }
  const change = { path: PATH, operation: 'MODIFY' as const }
  let expected: string | undefined
  for (let run = 0; run < RUNS; run++) {
    writeFileSync(join(repo, PATH), content)
    let start = performance.now()
    git('apply', patchFile)
    times.gitMs.push(performance.now() - start)
    expected ??= readFileSync(join(repo, PATH), 'utf8')

    start = performance.now()
    const drafted: DraftedEdit = editFromRead(readReply('udiff', diff), change, content)
    times.applyMs.push(performance.now() - start)
    if (drafted.edit.after !== expected) throw new Error('Patchsmith and git apply disagree')

    start = performance.now()
    await assertStillParses([drafted])
    times.gateMs.push(performance.now() - start)

    start = performance.now()
    renderDiff([drafted.edit])
    times.renderMs.push(performance.now() - start)
  }
  return {
    gitMs: median(times.gitMs),
    applyMs: median(times.applyMs),
    gateMs: median(times.gateMs),
    renderMs: median(times.renderMs)
  }
}

const root = mkdtempSync(join(tmpdir(), 'patchsmith-bench-scale-'))
const repo = join(root, 'repo')
try {
  execFileSync('git', ['init', '-q', repo])
  mkdirSync(join(repo, 'src'))
  const rows: Array<[number, Timed]> = []
  for (const lineCount of [10_000, 100_000]) rows.push([lineCount, await measure(lineCount, repo)])
  console.log(`udiff applier, ${HUNKS} hunks, median of ${RUNS} runs (ms):`)
  const heads = [
    'git apply',
    'patchsmith',
    'ratio',
    'syntax gate',
    'canonical diff',
    'all three',
    'ratio'
  ]
  const widths = [9, 10, 6, 11, 14, 9, 6]
  console.log('lines'.padEnd(9) + heads.map((head, i) => `  ${head.padStart(widths[i]!)}`).join(''))
  for (const [lineCount, t] of rows) {
    const all = t.applyMs + t.gateMs + t.renderMs
    const cells = [
      t.gitMs,
      t.applyMs,
      t.applyMs / t.gitMs,
      t.gateMs,
      t.renderMs,
      all,
      all / t.gitMs
    ]
    console.log(
      String(lineCount).padEnd(9) +
        cells
          .map((value, i) =>
            `${value.toFixed(1)}${i === 2 || i === 6 ? '×' : ''}`.padStart(widths[i]!)
          )
          .map((cell) => `  ${cell}`)
          .join('')
    )
  }
  console.log()
  const [small, large] = [rows[0]![1], rows[1]![1]]
  let ok = printFigure({
    name: 'patchsmith / git apply, 100 000 lines',
    value: large.applyMs / large.gitMs,
    unit: '×',
    anchor: { max: 20, label: 'issue 28' }
  })
  ok =
    printFigure({
      name: 'time per line, 100 000 / 10 000 lines',
      value: large.applyMs / 100_000 / (small.applyMs / 10_000),
      unit: '×',
      anchor: { max: 2, label: 'linear in lines + hunks' }
    }) && ok
  if (!ok) process.exitCode = 1
} finally {
  rmSync(root, { recursive: true, force: true })
}
