/**
 * bench:repo-size — what the size of the repository costs a run (issue 28, point 2). The typo
 * example's one-line plan-ful fix (validated with its `npm run lint`, pushed to a bare origin)
 * runs in this process (the action's entry, from source) on a repository with 1 000 files and
 * on one with 100 000, interleaved in the same run, against a model that answers at once. Prints
 * the median seconds of each, their ratio, the git processes of one run, and a shell script
 * making the same change (checkout -b, sed, commit, push) on each repository for comparison.
 * It says whether validation ran on an overlay of the work tree (as root, with util-linux):
 * there nothing after validation scans the whole tree.
 *
 * BENCH_RUNS (default 3) runs each; BENCH_LARGE (default 100000) the large repository's files;
 * BENCH_TRACE=1 runs git through a shim that logs each call with its milliseconds (the times
 * then include the shim) and lists the calls of the last large run.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runActionInProcess } from '../__tests__/support/in-process.js'
import { runProgram } from '../__tests__/support/action-runner.js'
import { replyByMatch, startModelServer } from '../__tests__/support/model-server.js'
import { typoReplies, TYPO_EXAMPLE, writeInputs } from '../__tests__/e2e/scenario.js'
import { sizedRepo } from './lib/sized-repo.js'
import type { TestRepo } from '../__tests__/support/repo.js'
import { median, printFigure, runsFromEnv } from './lib/report.js'

const RUNS = runsFromEnv(3)
const SMALL = 1_000
const LARGE = Number.parseInt(process.env.BENCH_LARGE ?? '', 10) || 100_000
const SUBJECT = 'docs(readme): correct typo in installation section'

const server = await startModelServer(
  replyByMatch(
    [{ contains: 'Conventional Commit', reply: SUBJECT }],
    typoReplies().replies[0]!.reply
  )
)
const repos: TestRepo[] = []
const trace = process.env.BENCH_TRACE === '1' ? traceShim() : undefined
let overlaid = false
try {
  let started = Date.now()
  const small = sizedRepo(SMALL)
  repos.push(small)
  const smallBuilt = Date.now() - started
  started = Date.now()
  const large = sizedRepo(LARGE)
  repos.push(large)
  console.log(
    `bench:repo-size — built ${SMALL} files in ${seconds(smallBuilt)} s, ${LARGE} in ${seconds(Date.now() - started)} s; ${RUNS} runs each (median)\n`
  )
  const times = { small: [] as number[], large: [] as number[] }
  const shell = { small: [] as number[], large: [] as number[] }
  const processes = { small: 0, large: 0 }
  const phases = { small: [] as Record<string, number>[], large: [] as Record<string, number>[] }
  // One warm-up of each, then interleaved so drift on a shared machine hits both alike.
  for (let i = -1; i < RUNS; i++) {
    for (const [name, repo] of [
      ['small', small],
      ['large', large]
    ] as const) {
      const run = await actionRun(repo, `docs/42-fix-typo-${name}-${i + 1}`)
      const script = await shellRun(repo, `shell/42-fix-typo-${name}-${i + 1}`)
      if (i < 0) continue
      times[name].push(run.ms)
      shell[name].push(script)
      processes[name] = run.gitProcesses
      phases[name].push(run.phases)
    }
  }
  const s = median(times.small)
  const l = median(times.large)
  const row = (label: string, ms: number) =>
    console.log(`${label.padEnd(52)} ${seconds(ms).padStart(8)} s`)
  row(`the run, ${SMALL} files`, s)
  row(`the run, ${LARGE} files`, l)
  row(`shell (checkout -b, sed, commit, push), ${SMALL} files`, median(shell.small))
  row(`shell (checkout -b, sed, commit, push), ${LARGE} files`, median(shell.large))
  console.log(
    '\nby phase (median ms)      ' + `${SMALL} files`.padStart(12) + `${LARGE} files`.padStart(14)
  )
  for (const phase of Object.keys(phases.large[0] ?? {})) {
    const at = (name: 'small' | 'large') => median(phases[name].map((p) => p[phase] ?? 0))
    console.log(
      `  ${phase.padEnd(24)}${at('small').toFixed(0).padStart(12)}${at('large').toFixed(0).padStart(14)}`
    )
  }
  console.log(
    `run ÷ shell: ${(s / median(shell.small)).toFixed(2)} (${SMALL}), ${(l / median(shell.large)).toFixed(2)} (${LARGE})\n`
  )
  console.log(
    `validation ${overlaid ? 'ran on an overlay of the work tree (no scan after it)' : 'ran on the work tree itself (scanned after it): the overlay needs root and util-linux'}\n`
  )
  printFigure({
    name: `run time, ${LARGE} files ÷ ${SMALL} files`,
    value: l / s,
    anchor: { max: 1.5, label: 'issue 28' }
  })
  printFigure({
    name: `git processes per run (${SMALL} files)`,
    value: processes.small,
    anchor: { max: 20, label: 'issue 28' }
  })
  printFigure({
    name: `git processes per run (${LARGE} files)`,
    value: processes.large,
    anchor: { max: 20, label: 'issue 28' }
  })
  if (trace) {
    writeFileSync(trace, '')
    await actionRun(large, 'docs/42-fix-typo-traced')
    const calls = readFileSync(trace, 'utf8').trim().split('\n')
    console.log(`\ngit calls of one ${LARGE}-file run (${calls.length}):`)
    for (const call of calls) console.log(`  ${call.slice(0, 200)}`)
  }
} finally {
  await server.close()
  for (const repo of repos) repo.cleanup()
}

async function actionRun(repo: TestRepo, branch: string) {
  const plan = JSON.parse(readFileSync(`${TYPO_EXAMPLE}/fix-plan.json`, 'utf8'))
  const inputs = writeInputs(repo, {
    'issue.json': JSON.parse(readFileSync(`${TYPO_EXAMPLE}/issue.json`, 'utf8')),
    'plan.json': { ...plan, branch_name: branch },
    'triage.json': JSON.parse(readFileSync(`${TYPO_EXAMPLE}/triage-result.json`, 'utf8'))
  })
  const result = join(repo.root, 'result.json')
  const run = await runActionInProcess({
    workspace: repo.dir,
    inputs: {
      issue: inputs['issue.json']!,
      'fix-plan': inputs['plan.json']!,
      'triage-result': inputs['triage.json']!,
      'base-url': server.url,
      'api-key': 'sk-bench-repo-size',
      'validation-commands': 'npm run lint',
      push: 'true',
      'upload-artifact': 'false',
      'comment-on-failure': 'false',
      'output-path': result,
      'log-dir': join(repo.root, 'logs')
    }
  })
  if (run.exitCode !== 0) throw new Error(`the run failed:\n${run.stdout}\n${run.stderr}`)
  overlaid ||= run.stdout.includes('on an overlay of the work tree')
  if (repo.gitOrigin('rev-parse', `refs/heads/${branch}`).length !== 40)
    throw new Error('the run did not push')
  const metrics = JSON.parse(readFileSync(result, 'utf8')).metrics as Record<string, unknown>
  backToMain(repo)
  return {
    ms: run.durationMs,
    gitProcesses: metrics.git_processes as number,
    phases: metrics.phase_ms as Record<string, number>
  }
}

async function shellRun(repo: TestRepo, branch: string): Promise<number> {
  const script = join(repo.root, 'same-change.sh')
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      'set -e',
      `git checkout -q -b ${branch}`,
      "sed -i 's/Run teh/Run the/' README.md",
      `git commit -q -m "${SUBJECT}" -- README.md`,
      `git push -q origin ${branch}`,
      ''
    ].join('\n')
  )
  chmodSync(script, 0o755)
  const run = await runProgram(['/bin/sh', script], { cwd: repo.dir })
  if (run.exitCode !== 0) throw new Error(`the shell script failed:\n${run.stderr}`)
  backToMain(repo)
  return run.durationMs
}

function backToMain(repo: TestRepo): void {
  repo.git('checkout', '--quiet', 'main')
}

/** A `git` first on PATH that logs each call and its milliseconds; returns the log's path. */
function traceShim(): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-bench-trace-'))
  const log = join(dir, 'git-calls.log')
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  writeFileSync(
    join(dir, 'git'),
    [
      '#!/bin/sh',
      's=$(date +%s%N)',
      `"${real}" "$@"`,
      'rc=$?',
      `printf '%s start %s ms  git %s\\n' "$(( s / 1000000 % 100000 ))" "$(( ($(date +%s%N) - s) / 1000000 ))" "$*" >> "${log}"`,
      'exit $rc',
      ''
    ].join('\n')
  )
  chmodSync(join(dir, 'git'), 0o755)
  process.env.PATH = `${dir}:${process.env.PATH}`
  return log
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(2)
}
