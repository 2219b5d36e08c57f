/** Small helpers the benchmarks share: medians, and a figure printed beside its anchor. */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../__tests__/support/action-runner.js'

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export interface Figure {
  name: string
  value: number
  unit?: string
  /** The target the figure is held to, e.g. `<= 2`. */
  anchor: { max: number; label?: string }
}

/** Prints `name  value  (anchor ≤ max)  ok|OVER` and returns whether it is within the anchor. */
export function printFigure(figure: Figure): boolean {
  const ok = figure.value <= figure.anchor.max
  const value = Number.isInteger(figure.value) ? String(figure.value) : figure.value.toFixed(2)
  const unit = figure.unit ? ` ${figure.unit}` : ''
  console.log(
    `${figure.name.padEnd(44)} ${`${value}${unit}`.padStart(12)}   anchor ≤ ${figure.anchor.max}${unit}` +
      `${figure.anchor.label ? ` (${figure.anchor.label})` : ''}   ${ok ? 'ok' : 'OVER'}`
  )
  return ok
}

/** Warns when dist/ is older than the sources, since the benchmarks run the bundle. */
export function warnIfStaleBundle(): void {
  const bundle = join(PROJECT_ROOT, 'dist/index.js')
  if (!existsSync(bundle)) throw new Error('dist/index.js is missing: run `npm run bundle` first')
  const built = statSync(bundle).mtimeMs
  const newest = newestMtime(join(PROJECT_ROOT, 'src'))
  if (newest > built)
    console.log('note: src/ is newer than dist/; run `npm run bundle` for current figures\n')
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

export function runsFromEnv(fallback: number): number {
  const runs = Number.parseInt(process.env.BENCH_RUNS ?? '', 10)
  return Number.isInteger(runs) && runs > 0 ? runs : fallback
}
