/**
 * bench:reproduction — what proof by reproduction costs (issue 35, point 6). The same prose bug
 * report on a Python repository with a real unittest suite, through the bundle, against a
 * scripted model that answers each call after a fixed latency (as a hosted model would):
 * `reproduction: commit` beside `reproduction: off`, several runs each.
 *
 * Printed: the validation phase's wall time held against the validation commands' own after-run
 * time (the proof's base runs either run inside validation, `off`, or were taken before the
 * first draft while the model wrote the test, `commit`), the whole run's wall time, and the
 * model calls and tokens a reproduction adds.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startModelServer, type RecordedRequest } from '../__tests__/support/model-server.js'
import { createRepo } from '../__tests__/support/repo.js'
import { isCommitMessageCall } from '../__tests__/e2e/fruit.js'
import { runPlan } from './lib/plan-run.js'
import { median, printFigure, warnIfStaleBundle } from './lib/report.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 1_500)
const COMMAND = 'python3 -m unittest discover -q'

// A suite that takes a moment, as a real one does: ten modules, each with a short wait.
const files: Record<string, string> = {
  'calc.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  'tests/__init__.py': ''
}
for (let i = 0; i < 10; i++) {
  files[`tests/test_part_${i}.py`] =
    `import time\nimport unittest\n\nfrom calc import mul\n\n\nclass Part${i}Test(unittest.TestCase):\n    def test_mul(self):\n        time.sleep(0.05)\n        self.assertEqual(mul(${i}, 2), ${i * 2})\n`
}
const TEST = `import unittest\n\nfrom calc import add\n\n\nclass Issue7Test(unittest.TestCase):\n    def test_add_two_numbers(self):\n        self.assertEqual(add(2, 3), 5)\n`
const lines = TEST.replace(/\n$/, '').split('\n')
const TEST_REPLY = `--- /dev/null\n+++ b/tests/test_issue_7.py\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`
const FIX = `--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n`
const isReproductionCall = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages).includes('Before the fix is drafted, write the test')

interface Sample {
  /** The job summary's proof, as it renders: the verification, the tests, the commands. */
  proof: string
  wall: number
  validate: number
  reproduce: number
  afterRuns: number
  calls: number
  tokens: number
}

async function once(mode: 'commit' | 'off'): Promise<Sample> {
  const repo = createRepo({ files, prefix: 'bench-repro' })
  const server = await startModelServer((request) => ({
    delayMs: LATENCY_MS,
    content: isCommitMessageCall(request)
      ? 'fix(calc): add returns the sum of its operands'
      : isReproductionCall(request)
        ? TEST_REPLY
        : FIX
  }))
  try {
    const started = performance.now()
    const { run, metrics } = await runPlan(
      repo,
      server.url,
      {
        issue: { number: 7, title: 'add gives the wrong sum', body: 'add(2, 3) gives -1, not 5.' },
        plan: {
          branch_name: 'fix/7-add',
          plan_steps: ['Make add return the sum'],
          file_changes: [{ path: 'calc.py', operation: 'MODIFY' }],
          validation_commands: [COMMAND]
        }
      },
      { 'validation-commands': COMMAND, settings: `reproduction: ${mode}` }
    )
    const wall = performance.now() - started
    const result = JSON.parse(run.outputs['commits'] ?? '[]') as Array<{
      validation_results: Array<{ duration_ms: number }>
      verification?: { status: string }
    }>
    const expected = mode === 'commit' ? 'reproduced-and-fixed' : 'unverified'
    if (result[0]?.verification?.status !== expected)
      throw new Error(`expected ${expected}, got ${JSON.stringify(result[0]?.verification)}`)
    const t = metrics.tokens
    const summary = run.summary
    const from = summary.indexOf('### Proof')
    const end = summary.indexOf('\n### ', from + 4)
    const proof = from < 0 ? '' : summary.slice(from, end < 0 ? undefined : end)
    return {
      proof,
      wall,
      validate: metrics.phase_ms.validate ?? 0,
      reproduce: metrics.phase_ms.reproduce ?? 0,
      afterRuns: result[0]!.validation_results.reduce((sum, r) => sum + r.duration_ms, 0),
      calls: t.calls,
      tokens: t.prompt + t.completion
    }
  } finally {
    await server.close()
    repo.cleanup()
  }
}

warnIfStaleBundle()
const scratch = mkdtempSync(join(tmpdir(), 'patchsmith-bench-reproduction-'))
try {
  console.log(
    `bench:reproduction — ${RUNS} runs each, model latency ${LATENCY_MS} ms a call, \`${COMMAND}\` (11 test modules)\n`
  )
  const samples: Record<'commit' | 'off', Sample[]> = { commit: [], off: [] }
  // Interleaved, so a change in the machine's load falls on both.
  for (let i = 0; i < RUNS; i++) {
    samples.off.push(await once('off'))
    samples.commit.push(await once('commit'))
  }
  const m = (mode: 'commit' | 'off', key: Exclude<keyof Sample, 'proof'>) =>
    median(samples[mode].map((s) => s[key]))
  const row = (name: string, key: Exclude<keyof Sample, 'proof'>, unit = 'ms') =>
    console.log(
      `${name.padEnd(44)} ${`${Math.round(m('off', key))} ${unit}`.padStart(12)} ${`${Math.round(m('commit', key))} ${unit}`.padStart(14)}`
    )
  console.log(`${''.padEnd(44)} ${'off'.padStart(12)} ${'commit'.padStart(14)}`)
  row('whole run, wall', 'wall')
  row('reproduce phase (base runs, the test)', 'reproduce')
  row('validate phase', 'validate')
  row("validation commands' own after-runs", 'afterRuns')
  row('model calls', 'calls', '')
  row('tokens (prompt + completion)', 'tokens', '')
  console.log('')
  const ratio = (mode: 'commit' | 'off') => m(mode, 'validate') / m(mode, 'afterRuns')
  console.log(
    `validation wall time ÷ after-runs alone, reproduction: off (base run inside validation): ${ratio('off').toFixed(2)}×`
  )
  printFigure({
    name: 'validation wall time ÷ after-runs, commit',
    value: ratio('commit'),
    unit: '×',
    anchor: { max: 1.2, label: 'issue 35 point 6' }
  })
  console.log(
    `a reproduction costs ${m('commit', 'calls') - m('off', 'calls')} model call(s) and ${Math.round(m('commit', 'tokens') - m('off', 'tokens'))} tokens here`
  )
  console.log(`\nThe job summary's proof of the last reproduction: commit run, as written:\n`)
  console.log(samples.commit[samples.commit.length - 1]!.proof.trim())
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
