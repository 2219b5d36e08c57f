/**
 * bench:leftovers — what putting the work tree back after validation costs (issue 36, point 1).
 * The typo example's plan-ful fix runs through dist/ on a repository of 1 000 files and on one
 * of 100 000 with a 50 000-file ignored node_modules beside them (as `npm ci` would leave),
 * validation writing into node_modules, `.env` and a link to / each time (all removed after
 * it), on two paths side by side in one run:
 *
 * - the overlay path: as root with util-linux, validation on an overlay of the work tree (only
 *   the approved change is carried; nothing after it scans the tree);
 * - the hosted-runner path: bubblewrap as a normal user (patchsmith-sudo), validation on the
 *   tree itself, a snapshot of every entry's lstat stamps before and after it.
 *
 * Prints the median seconds of each and the 100 000 ÷ 1 000 ratio per path (anchor ≤ 1.5).
 * BENCH_RUNS (default 5) runs each; BENCH_LARGE (default 100000), BENCH_IGNORED (default 50000).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runAction } from '../__tests__/support/action-runner.js'
import { replyByMatch, startModelServer } from '../__tests__/support/model-server.js'
import { typoReplies, TYPO_EXAMPLE, writeInputs } from '../__tests__/e2e/scenario.js'
import type { TestRepo } from '../__tests__/support/repo.js'
import { median, printFigure, runsFromEnv, warnIfStaleBundle } from './lib/report.js'
import { sizedRepo } from './lib/sized-repo.js'

const RUNS = runsFromEnv(5)
const SMALL = 1_000
const LARGE = Number.parseInt(process.env.BENCH_LARGE ?? '', 10) || 100_000
const IGNORED = Number.parseInt(process.env.BENCH_IGNORED ?? '', 10) || 50_000
const SUDO_USER = 'patchsmith-sudo'
const SUBJECT = 'docs(readme): correct typo in installation section'
/** What validation leaves each time: an ignored file, a secret file, a link to /. */
const LEAVES =
  'mkdir -p node_modules/.bin && echo evil > node_modules/.bin/tsc && echo T=1 > .env && ln -sfn / host-root && npm run lint'

/** Ignored in both repositories: what validation leaves is never the user's to see in git. */
const IGNORE = ['node_modules/', '.env', 'host-root']

warnIfStaleBundle()
if (process.getuid?.() !== 0) throw new Error('bench:leftovers runs as root (the overlay path)')
const hosted = existsSync(`/etc/sudoers.d/${SUDO_USER}`)
const server = await startModelServer(
  replyByMatch(
    [{ contains: 'Conventional Commit', reply: SUBJECT }],
    typoReplies().replies[0]!.reply
  )
)
const repos: TestRepo[] = []
try {
  let started = Date.now()
  const small = sizedRepo(SMALL, 0, IGNORE)
  repos.push(small)
  const large = sizedRepo(LARGE, IGNORED, IGNORE)
  repos.push(large)
  // The 150 000 files just written are on their way to the disk: runs timed meanwhile would
  // share the machine with that writeback (the large ones most).
  execFileSync('sync')
  console.log(
    `bench:leftovers — built ${SMALL} files, and ${LARGE} with ${IGNORED} ignored, in ${seconds(Date.now() - started)} s; ${RUNS} runs each (median)\n`
  )
  const paths = hosted ? (['overlay', 'hosted'] as const) : (['overlay'] as const)
  const times: Record<string, number[]> = {}
  let count = 0
  // One warm-up of each, then interleaved so drift on a shared machine hits all alike.
  for (let i = -1; i < RUNS; i++)
    for (const path of paths)
      for (const [size, repo] of [
        ['small', small],
        ['large', large]
      ] as const) {
        started = Date.now()
        const ms = await actionRun(repo, path, `docs/42-fix-typo-${path}-${size}-${++count}`)
        if (i >= 0) (times[`${path} ${size}`] ??= []).push(ms)
      }
  console.log(
    `${'path'.padEnd(48)}${`${SMALL} files`.padStart(14)}${`${LARGE} + ${IGNORED}`.padStart(18)}`
  )
  const label = {
    overlay: 'overlay (root, util-linux)',
    hosted: `bubblewrap as ${SUDO_USER} (hosted runner)`
  }
  for (const path of paths) {
    const s = median(times[`${path} small`]!)
    const l = median(times[`${path} large`]!)
    console.log(
      `${label[path].padEnd(48)}${`${seconds(s)} s`.padStart(14)}${`${seconds(l)} s`.padStart(18)}`
    )
  }
  console.log()
  for (const path of paths)
    printFigure({
      name: `${path}: run time, ${LARGE}+${IGNORED} ÷ ${SMALL} files`,
      value: median(times[`${path} large`]!) / median(times[`${path} small`]!),
      anchor: { max: 1.5, label: 'issue 36' }
    })
  if (!hosted) console.log(`\nhosted-runner path skipped: no ${SUDO_USER} with passwordless sudo`)
} finally {
  await server.close()
  for (const repo of repos) repo.cleanup()
}

/** One run through dist/ on `path`; its milliseconds. Checks that nothing validation left stays. */
async function actionRun(repo: TestRepo, path: 'overlay' | 'hosted', branch: string) {
  const plan = JSON.parse(readFileSync(`${TYPO_EXAMPLE}/fix-plan.json`, 'utf8'))
  const inputs = writeInputs(repo, {
    'issue.json': JSON.parse(readFileSync(`${TYPO_EXAMPLE}/issue.json`, 'utf8')),
    'plan.json': { ...plan, branch_name: branch, validation_commands: [] },
    'triage.json': JSON.parse(readFileSync(`${TYPO_EXAMPLE}/triage-result.json`, 'utf8'))
  })
  const user = path === 'hosted' ? SUDO_USER : undefined
  if (user) {
    execFileSync('chown', ['-R', user, repo.root])
    const refresh = ['git', '-C', repo.dir, 'update-index', '-q', '--refresh']
    execFileSync('runuser', ['-u', user, '--', ...refresh], { stdio: 'ignore' })
    // The bench's own chown changed every inode's ctime: written back now, not during the run.
    execFileSync('sync')
  }
  try {
    const run = await runAction({
      workspace: repo.dir,
      user,
      timeoutMs: 600_000,
      env: user ? { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' } : {},
      inputs: {
        issue: inputs['issue.json']!,
        'fix-plan': inputs['plan.json']!,
        'triage-result': inputs['triage.json']!,
        'base-url': server.url,
        'api-key': 'sk-bench-leftovers',
        'validation-commands': LEAVES,
        sandbox: 'required',
        push: 'true',
        'upload-artifact': 'false',
        'comment-on-failure': 'false',
        'output-path': join(repo.root, 'result.json'),
        'log-dir': join(repo.root, 'logs')
      }
    })
    if (run.exitCode !== 0) throw new Error(`the run failed:\n${run.stdout}\n${run.stderr}`)
    const overlaid = run.stdout.includes('on an overlay of the work tree')
    if (overlaid !== (path === 'overlay'))
      throw new Error(`the ${path} path did not run:\n${run.stdout}`)
    for (const left of ['node_modules/.bin', '.env', 'host-root'])
      if (existsSync(join(repo.dir, left))) throw new Error(`${left} was left in the work tree`)
    return run.durationMs
  } finally {
    if (user) execFileSync('chown', ['-R', '0:0', repo.root])
    repo.git('update-index', '-q', '--refresh')
    repo.git('checkout', '--quiet', 'main')
    if (user) execFileSync('sync')
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(2)
}
