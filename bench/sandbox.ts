/**
 * bench:sandbox — what the sandbox costs per command. The same trivial command (`true`) runs
 * through the command runner bare and in each Linux backend that works on this machine (with
 * the whole jail: its own network namespace, private /tmp, HOME and /dev/shm, the task limit), on
 * a real repository; prints each median and p90 and the median overhead against the bare spawn.
 * The anchor (≤ 50 ms per command, issue 24) holds bubblewrap, the backend Patchsmith prefers;
 * the unshare fallbacks are printed for comparison. The sudo path (GitHub-hosted runners: a user
 * with passwordless sudo) is timed as that user when run as root where `.ci/run`'s
 * patchsmith-sudo exists, against the same user's bare spawn.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gitDirs } from '../src/git/index.js'
import {
  BACKENDS,
  gitFileCovers,
  jailLayout,
  jailPlan,
  Sandbox,
  unshareSpec,
  validationEnv,
  type BackendName
} from '../src/sandbox/index.js'
import { runCommand, SecretMasker } from '../src/validation/index.js'
import { median, printFigure, runsFromEnv } from './lib/report.js'

const RUNS = runsFromEnv(40)
const GOAL_MS = 50
const ANCHORED: BackendName = 'bubblewrap'
const SUDO_USER = 'patchsmith-sudo'

const p90 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!
const ms = (values: number[]) =>
  `median ${median(values).toFixed(1)} ms, p90 ${p90(values).toFixed(1)} ms`

/** Times RUNS calls of `once` after two that warm the page cache and are not counted. */
async function timeRuns(once: () => Promise<void>): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < RUNS + 2; i++) {
    const started = process.hrtime.bigint()
    await once()
    if (i >= 2) times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  return times
}

function timeSandbox(sandbox: Sandbox, work: string): Promise<number[]> {
  return timeRuns(async () => {
    const outcome = await runCommand('true', {
      cwd: work,
      timeoutMs: 30_000,
      outputLimit: 1000,
      masker: new SecretMasker(),
      env: validationEnv(process.env),
      sandbox
    })
    if (outcome.exit_code !== 0) throw new Error(`${sandbox.backend}: ${outcome.stderr}`)
  })
}

function overhead(backend: string, times: number[], bare: number[]): boolean {
  const name = `${backend} overhead per command, network namespace included (median)`
  const value = Math.max(0, median(times) - median(bare))
  if (backend === ANCHORED)
    return printFigure({ name, value, unit: 'ms', anchor: { max: GOAL_MS, label: 'issue 24' } })
  console.log(`${name.padEnd(44)} ${`${value.toFixed(2)} ms`.padStart(12)}   (no anchor)`)
  return true
}

/** The sudo path as root sees it: run as SUDO_USER, who asks sudo for the jail's mounts. */
async function timeSudoPath(): Promise<{ bare: number[]; jailed: number[] } | string> {
  const has = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0
  if (!existsSync(`/etc/sudoers.d/${SUDO_USER}`) || !has('sudo') || !has('runuser'))
    return `no ${SUDO_USER} with passwordless sudo here (.ci/run creates it)`
  const find = (name: string) =>
    execFileSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin command -v ${name}`], {
      encoding: 'utf8'
    }).trim()
  const programs = Object.fromEntries(
    ['unshare', 'sudo', 'setpriv', 'prlimit', 'mount', 'ip'].map((name) => [name, find(name)])
  )
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, SUDO_USER], { encoding: 'utf8' }).trim())
  const caller = { uid: id('-u'), gid: id('-g'), tasks: 0 }
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-bench-sudo-'))
  try {
    const work = join(root, 'work')
    execFileSync('git', ['init', '-q', work])
    mkdirSync(join(root, 'stash'))
    mkdirSync(join(root, 'git'))
    const layout = jailLayout(process.env, work, gitDirs(work))
    const covers = gitFileCovers(layout.gitDirs, join(root, 'git'))
    execFileSync('chown', ['-R', `${SUDO_USER}:${SUDO_USER}`, work])
    chmodSync(root, 0o755)
    execFileSync('chmod', ['-R', 'a+rX', root])
    const env = validationEnv(process.env)
    const plan = jailPlan(layout, covers, {})
    const spec = unshareSpec(programs, plan, join(root, 'stash'), 'true', work, env, true, caller)
    const asUser = (file: string, args: string[], vars: Record<string, string>) => () =>
      new Promise<void>((resolve, reject) =>
        execFile(
          'runuser',
          ['-u', SUDO_USER, '--', file, ...args],
          { cwd: work, env: vars },
          (e) => (e ? reject(e) : resolve())
        )
      )
    const bare = await timeRuns(asUser('/bin/sh', ['-c', 'true'], env))
    const jailed = await timeRuns(asUser(spec.file, spec.args, spec.env))
    return { bare, jailed }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const work = mkdtempSync(join(tmpdir(), 'patchsmith-bench-sandbox-'))
const hidden = mkdtempSync(join(tmpdir(), 'patchsmith-bench-hidden-'))
try {
  execFileSync('git', ['init', '-q', work])
  const layout = jailLayout(process.env, work, gitDirs(work), [hidden])
  const bare = await timeSandbox(Sandbox.none(), work)
  console.log(`bench:sandbox — ${RUNS} runs of \`true\` per backend`)
  console.log(`bare spawn: ${ms(bare)}`)
  let ok = true
  let anchored = false
  for (const backend of BACKENDS) {
    const sandbox = await Sandbox.open(layout, [backend])
    if (!sandbox.active) {
      console.log(`${backend}: not available here (${sandbox.unavailable.join('; ')})`)
      continue
    }
    try {
      const times = await timeSandbox(sandbox, work)
      console.log(`${backend}: ${ms(times)} (task limit: ${sandbox.taskLimit})`)
      ok = overhead(backend, times, bare) && ok
      anchored ||= backend === ANCHORED
    } finally {
      sandbox.dispose()
    }
  }
  if (process.getuid?.() === 0) {
    const sudo = await timeSudoPath()
    if (typeof sudo === 'string') console.log(`sudo-unshare as ${SUDO_USER}: skipped, ${sudo}`)
    else {
      console.log(`bare spawn as ${SUDO_USER} (runuser): ${ms(sudo.bare)}`)
      console.log(`sudo-unshare as ${SUDO_USER} (runuser): ${ms(sudo.jailed)}`)
      overhead('sudo-unshare', sudo.jailed, sudo.bare)
    }
  }
  if (!anchored) console.log(`${ANCHORED}: no figure, the anchor (≤ ${GOAL_MS} ms) is unchecked`)
  process.exitCode = ok && anchored ? 0 : 1
} finally {
  rmSync(work, { recursive: true, force: true })
  rmSync(hidden, { recursive: true, force: true })
}
