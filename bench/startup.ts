/**
 * bench:startup — the cold start of the command line beside bare Node, in the same run: wall
 * time, CPU time and peak memory of `node dist/cli.js help` against `node -e 0`, started in turn
 * BENCH_RUNS times. The child reports its own CPU and peak memory at exit (through `--import`,
 * so the measured program is untouched). On Node 22.1 and later the CLI turns on Node's compile
 * cache; the last row is a start with that cache warm. Last, what the contract's zod schemas cost
 * to build (they are built on first use, not at load), timed from the sources after the run
 * config's schema has warmed zod, as in a run.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import module from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../__tests__/support/action-runner.js'
import { median, runsFromEnv, warnIfStaleBundle } from './lib/report.js'

const RUNS = runsFromEnv(9)
const REPORT =
  "data:text/javascript,process.on('exit',()=>{const c=process.cpuUsage();" +
  "process.stderr.write('\\nSTARTUP '+((c.user+c.system)/1000)+' '+process.resourceUsage().maxRSS+'\\n')})"

interface Sample {
  wallMs: number
  cpuMs: number
  rssMiB: number
}

function sample(args: readonly string[], cacheDir: string): Sample {
  const started = process.hrtime.bigint()
  const child = spawnSync(process.execPath, ['--import', REPORT, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_COMPILE_CACHE: cacheDir },
    encoding: 'utf8'
  })
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6
  const line = /STARTUP (\S+) (\d+)/.exec(child.stderr)
  if (!line) throw new Error(`no startup figures from node ${args.join(' ')}: ${child.stderr}`)
  return { wallMs, cpuMs: Number(line[1]), rssMiB: Number(line[2]) / 1024 }
}

// Built in order: a plan-ful run's own three first (with the schemas inside them), then the rest.
const SCHEMA_COST = `await import('./src/config.ts')
const contract = await import('./src/contract/index.ts')
const getters = Object.entries(contract)
  .filter(([name, value]) => /Schema$/.test(name) && typeof value === 'function' && value.length === 0)
const cpu = (from) => { const used = process.cpuUsage(from); return (used.user + used.system) / 1000 }
const started = process.cpuUsage()
for (const name of ['issueSchema', 'triageResultSchema', 'fixPlanSchema']) contract[name]()
const planful = cpu(started)
for (const [, build] of getters) build()
console.log('SCHEMAS', getters.length, planful, cpu(started))`

/** CPU ms to build a plan-ful run's contract schemas, and all of them, from the sources. */
function schemaCost(): { count: number; planfulMs: number; allMs: number } {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', SCHEMA_COST],
    { cwd: PROJECT_ROOT, encoding: 'utf8' }
  )
  const line = /SCHEMAS (\d+) (\S+) (\S+)/.exec(child.stdout)
  if (!line) throw new Error(`no schema figures: ${child.stderr}`)
  return { count: Number(line[1]), planfulMs: Number(line[2]), allMs: Number(line[3]) }
}

function row(name: string, samples: readonly Sample[]): string {
  const at = (pick: (s: Sample) => number) => median(samples.map(pick))
  return (
    `${name.padEnd(38)} wall ${at((s) => s.wallMs)
      .toFixed(0)
      .padStart(5)} ms` +
    `   cpu ${at((s) => s.cpuMs)
      .toFixed(0)
      .padStart(5)} ms` +
    `   peak ${at((s) => s.rssMiB)
      .toFixed(0)
      .padStart(4)} MiB`
  )
}

warnIfStaleBundle()
const caches = mkdtempSync(join(tmpdir(), 'patchsmith-bench-startup-'))
try {
  const bare: Sample[] = []
  const cold: Sample[] = []
  for (let i = 0; i < RUNS; i++) {
    bare.push(sample(['-e', '0'], join(caches, `none-${i}`)))
    // A fresh cache folder each time: nothing compiled before.
    cold.push(sample(['dist/cli.js', 'help'], join(caches, `cold-${i}`)))
  }
  const warmCache = join(caches, 'warm')
  sample(['dist/cli.js', 'help'], warmCache)
  const warm = Array.from({ length: RUNS }, () => sample(['dist/cli.js', 'help'], warmCache))
  console.log(`Node ${process.version}, ${RUNS} runs each, medians\n`)
  console.log(row('bare node (node -e 0)', bare))
  console.log(row('patchsmith help, cold', cold))
  console.log(row('patchsmith help, compile cache warm', warm))
  const ratio = (pick: (s: Sample) => number) =>
    (median(cold.map(pick)) / median(bare.map(pick))).toFixed(2)
  console.log(
    `\ncold start beside bare node: cpu ${ratio((s) => s.cpuMs)}×, wall ${ratio((s) => s.wallMs)}×, peak memory ${ratio((s) => s.rssMiB)}×`
  )
  console.log(
    'issue 28 anchors (same machine, earlier): bundle load 260 ms cpu / 73 MiB beside bare node 60 ms / 39 MiB (4.3×, 1.9×)'
  )
  const cli = readFileSync(join(PROJECT_ROOT, 'dist/cli.js'), 'utf8')
  console.log(
    `dist/cli.js turns on the compile cache before loading the bundle: ${/enableCompileCache\?\.\(\)[\s\S]*import\('\.\/patchsmith\.js'\)/.test(cli) ? 'yes' : 'NO'}`
  )
  const costs = Array.from({ length: Math.min(RUNS, 5) }, schemaCost)
  const costAt = (pick: (c: (typeof costs)[number]) => number) => median(costs.map(pick)).toFixed(1)
  console.log(
    `contract schemas built on first use, not at load: all ${costs[0]!.count} ${costAt((c) => c.allMs)} ms cpu, ` +
      `a plan-ful run's (issue, triage, fix plan) ${costAt((c) => c.planfulMs)} ms`
  )
  if (!('enableCompileCache' in module))
    console.log('(Node before 22.1 has no compile cache: the warm row is a cold start too.)')
} finally {
  rmSync(caches, { recursive: true, force: true })
}
