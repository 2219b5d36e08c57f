/**
 * bench:masking — masking 1 MB of ordinary validation output that ends in a rot13-spelled token,
 * beside one regex pass over the same text in the same run: on a busy machine both slow down
 * alike, so the figure is the ratio. (Moved out of the test suite, which asserts no speed.)
 */
import { rot13, SecretMasker } from '../src/secrets/index.js'
import { median, printFigure, runsFromEnv } from './lib/report.js'

const TOKEN = 'ghs_CANARYcanary0123456789abcdefghijklmn'
const ROUNDS = runsFromEnv(5)

const masker = SecretMasker.forRun({
  apiKey: 'sk-ant-api03-CANARYcanaryCANARYcanary0123456789',
  githubToken: TOKEN,
  env: { EXTRA_SECRET: 'zX9!canary-Q7' }
})
masker.add('hunter2hunter2')
const line = 'src/widget.test.ts > renders 0x1f 2024-01-01T00:00:00Z ok 123 456, done [info]\n'
const big = `${line.repeat(Math.ceil(1_000_000 / line.length))}${rot13(TOKEN)}\n`
if (!masker.maskKnown(big).endsWith('***\n')) throw new Error('the token was not masked')

function timed(work: () => unknown): number {
  const times: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now()
    work()
    times.push(performance.now() - started)
  }
  return median(times)
}

const masking = timed(() => masker.maskKnown(big))
const pass = timed(() => big.replace(/[^a-z0-9]+/gi, ''))
console.log(
  `masking 1 MB: ${masking.toFixed(1)} ms; one regex pass: ${pass.toFixed(1)} ms (medians of ${ROUNDS})\n`
)
// Measured ~30-50 ms on an idle 2-core machine, about ten such passes.
const ok = printFigure({
  name: 'masking 1 MB / one regex pass',
  value: masking / pass,
  unit: '×',
  anchor: { max: 20, label: 'the bound the suite asserted, with 100 ms' }
})
process.exitCode = ok ? 0 : 1
