/**
 * bench:sandbox — what the sandbox costs per command. The same trivial command (`true`) runs
 * through the command runner bare and in each Linux backend that works on this machine (with
 * the whole jail: its own network namespace, private /tmp, HOME and /dev/shm, the task limit), on
 * a real repository; prints each median and p90 and the median overhead against the bare spawn,
 * beside the goal (≤ 50 ms per command).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { gitDirs } from '../src/git/index.js'
import { BACKENDS, jailLayout, Sandbox, validationEnv } from '../src/sandbox/index.js'
import { runCommand, SecretMasker } from '../src/validation/index.js'
import { median, printFigure, runsFromEnv } from './lib/report.js'

const RUNS = runsFromEnv(40)
const GOAL_MS = 50

const work = mkdtempSync(join(tmpdir(), 'patchsmith-bench-sandbox-'))
const hidden = mkdtempSync(join(tmpdir(), 'patchsmith-bench-hidden-'))
try {
  execFileSync('git', ['init', '-q', work])
  const layout = jailLayout(process.env, work, gitDirs(work), [hidden])
  const time = async (sandbox: Sandbox): Promise<number[]> => {
    const times: number[] = []
    for (let i = 0; i < RUNS + 2; i++) {
      const started = process.hrtime.bigint()
      const outcome = await runCommand('true', {
        cwd: work,
        timeoutMs: 30_000,
        outputLimit: 1000,
        masker: new SecretMasker(),
        env: validationEnv(process.env),
        sandbox
      })
      if (outcome.exit_code !== 0) throw new Error(`${sandbox.backend}: ${outcome.stderr}`)
      // The first two warm the page cache and the runner; they are not counted.
      if (i >= 2) times.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
    return times
  }
  const p90 = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!
  const bare = await time(Sandbox.none())
  console.log(`bench:sandbox — ${RUNS} runs of \`true\` per backend`)
  console.log(`bare spawn: median ${median(bare).toFixed(1)} ms, p90 ${p90(bare).toFixed(1)} ms`)
  let ok = true
  for (const backend of BACKENDS) {
    const sandbox = await Sandbox.open(layout, [backend])
    if (!sandbox.active) {
      console.log(`${backend}: not available here (${sandbox.unavailable.join('; ')})`)
      continue
    }
    try {
      const times = await time(sandbox)
      console.log(
        `${backend}: median ${median(times).toFixed(1)} ms, p90 ${p90(times).toFixed(1)} ms`
      )
      ok =
        printFigure({
          name: `${backend} overhead per command, network namespace included (median)`,
          value: Math.max(0, median(times) - median(bare)),
          unit: 'ms',
          anchor: { max: GOAL_MS, label: 'issue 12 goal' }
        }) && ok
    } finally {
      sandbox.dispose()
    }
  }
  process.exitCode = ok ? 0 : 1
} finally {
  rmSync(work, { recursive: true, force: true })
  rmSync(hidden, { recursive: true, force: true })
}
