/**
 * bench:parallel — drafting 8 file changes against a model server that takes 1 s per draft
 * call (the commit message's call answers at once). Through `node dist/index.js`; the figure
 * is the draft phase's wall time ÷ one call's latency: 1.0 is perfect overlap, 8.0 none. The
 * whole run's wall time ÷ one call is printed beside it: the same overlap plus the action's
 * start-up, checks and commit (bench:overhead).
 */
import { lastUserMessage, startModelServer } from '../__tests__/support/model-server.js'
import { createRepo } from '../__tests__/support/repo.js'
import { runPlan } from './lib/plan-run.js'
import { median, printFigure, runsFromEnv, warnIfStaleBundle } from './lib/report.js'

const FILES = 8
const LATENCY_MS = 1_000
const RUNS = runsFromEnv(3)

warnIfStaleBundle()
const paths = Array.from({ length: FILES }, (_, i) => `src/part-${i}.txt`)
const server = await startModelServer((request) => {
  const prompt = lastUserMessage(request)
  if (prompt.includes('Conventional Commit')) return 'chore(parts): say hello in every part file'
  const path = paths.find((candidate) => prompt.includes(candidate))
  if (!path) throw new Error('a draft request for no planned file')
  return {
    delayMs: LATENCY_MS,
    content: `--- a/${path}\n+++ b/${path}\n@@ -1,2 +1,2 @@\n-hello\n+hello, world\n line two\n`
  }
})

try {
  console.log(
    `bench:parallel — ${FILES} file changes, ${LATENCY_MS} ms per draft call (median of ${RUNS})\n`
  )
  const figures: boolean[] = []
  for (const concurrency of [FILES, 4]) {
    const draft: number[] = []
    const wall: number[] = []
    let inFlight = 0
    for (let i = 0; i < RUNS; i++) {
      server.maxConcurrent = 0
      const run = await oneRun(concurrency)
      draft.push(run.draftMs)
      wall.push(run.wallMs)
      inFlight = server.maxConcurrent
    }
    const ratio = median(draft) / LATENCY_MS
    console.log(
      `concurrency ${concurrency}: draft phase ${median(draft)} ms, whole run ${median(wall)} ms, ` +
        `${inFlight} calls in flight at most`
    )
    const ideal = Math.ceil(FILES / concurrency)
    const label = ideal === 1 ? 'all at once' : `${ideal} waves`
    figures.push(
      printFigure({
        name: `  parallel ratio (draft ÷ one call), c=${concurrency}`,
        value: ratio,
        anchor: { max: 1.25 * ideal, label }
      }),
      printFigure({
        name: `  whole run ÷ one call, c=${concurrency}`,
        value: median(wall) / LATENCY_MS,
        anchor: { max: 1.25 * ideal, label: `${label}, start-up included` }
      })
    )
    console.log('')
  }
} finally {
  await server.close()
}

async function oneRun(concurrency: number): Promise<{ draftMs: number; wallMs: number }> {
  const repo = createRepo({
    files: Object.fromEntries(paths.map((path) => [path, 'hello\nline two\n'])),
    prefix: 'bench-parallel'
  })
  try {
    const { run, metrics } = await runPlan(
      repo,
      server.url,
      {
        issue: { number: 8, title: 'Greet the world in every part', body: 'hello → hello, world' },
        plan: {
          branch_name: 'chore/8-hello-world',
          plan_steps: ['Change hello to hello, world in each part'],
          file_changes: paths.map((path) => ({ path, operation: 'MODIFY', line_range: [1, 1] })),
          validation_commands: []
        }
      },
      { concurrency: String(concurrency) }
    )
    return { draftMs: metrics.phase_ms.draft!, wallMs: run.durationMs }
  } finally {
    repo.cleanup()
  }
}
