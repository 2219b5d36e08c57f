import { performance } from 'node:perf_hooks'
import { editFromReply } from '../../src/edits/index.js'

export interface SpeedRow {
  label: string
  lines: number
  hunks: number
  /** Median and fastest of the runs: on a busy machine the fastest shows the cost best. */
  medianMs: number
  fastestMs: number
}

/** A file of small functions, so `}`, `return 0` and blank lines repeat as in real code. */
function sourceFile(functions: number): string[] {
  const lines: string[] = []
  for (let i = 0; i < functions; i++) {
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
  return lines
}

type Variant = 'clean' | 'damaged' | 'additions'

/**
 * A reply with `hunks` hunks spread evenly. `damaged` shifts every line number by 7 and
 * re-indents a context line; `additions` only adds lines, so context alone must place each hunk.
 */
function reply(lines: readonly string[], hunks: number, variant: Variant): string {
  const out = ['--- a/src/big.ts', '+++ b/src/big.ts']
  const functions = lines.length / 8
  const every = Math.floor(functions / hunks)
  for (let h = 0; h < hunks; h++) {
    const f = h * every
    const at = f * 8
    const start = variant === 'damaged' ? at + 1 + 7 : at + 1
    out.push(`@@ -${start},4 +${start},4 @@`)
    out.push(` ${variant === 'damaged' ? '\t' + lines[at]!.trimStart() : lines[at]}`)
    if (variant === 'additions') {
      out.push(` ${lines[at + 1]}`, `+  console.log(total${f})`)
    } else {
      out.push(`-${lines[at + 1]}`, `+  const total${f} = a * b`)
    }
    out.push(` ${lines[at + 2]}`, ` ${lines[at + 3]}`)
  }
  return out.join('\n') + '\n'
}

const RUNS = 11

function time(lines: readonly string[], hunks: number, variant: Variant) {
  const content = lines.join('\n') + '\n'
  const text = reply(lines, hunks, variant)
  const change = { path: 'src/big.ts', operation: 'MODIFY' as const }
  const runs: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    const drafted = editFromReply('udiff', text, change, content)
    runs.push(performance.now() - start)
    if (drafted.placements.length !== hunks) throw new Error('speed case did not apply')
  }
  runs.sort((a, b) => a - b)
  return { medianMs: runs[Math.floor(runs.length / 2)]!, fastestMs: runs[0]! }
}

/** Time to parse, locate and apply: 10 000 lines / 100 hunks, and the doubled sizes. */
export function speedRows(): SpeedRow[] {
  const rows: SpeedRow[] = []
  for (const variant of ['clean', 'damaged', 'additions'] as const) {
    for (const [lineCount, hunks] of [
      [10_000, 100],
      [20_000, 100],
      [20_000, 200]
    ] as const) {
      rows.push({
        label: variant,
        lines: lineCount,
        hunks,
        ...time(sourceFile(lineCount / 8), hunks, variant)
      })
    }
  }
  return rows
}
