/**
 * Runs the action in this test process, from source: the same entry (`run()` in src/main.ts),
 * the same runner files and variables as `runAction`, the same real parts (loopback model and
 * GitHub servers, real repositories, real git and sandboxed commands), without starting Node
 * and loading the bundle for every run.
 *
 * The entry reads the runner's variables and writes its log to stdout, as on a runner; for the
 * length of one run this process's environment, working directory, stdout, stderr and exit code
 * are the step's, and they are put back afterwards. Runs are serialised within a test file.
 * What needs a process of its own (signals, `/proc` of the action) goes through `runAction`.
 * `runCliInProcess` is the same for the command line (`cli()` in src/cli, as `runCli` runs it).
 */
import { cli } from '../../src/cli/index.js'
import { run } from '../../src/main.js'
import {
  baseEnv,
  PROJECT_ROOT,
  runnerFiles,
  type ActionRun,
  type ActionRunOptions,
  type CliRun
} from './action-runner.js'

let queue: Promise<unknown> = Promise.resolve()

export function runActionInProcess(options: ActionRunOptions): Promise<ActionRun> {
  if (options.signals) throw new Error('runActionInProcess: signals need a process; use runAction')
  const next = queue.then(() => runOnce(options))
  queue = next.catch(() => undefined)
  return next
}

/** `patchsmith ARGS` in this process, with runCli's environment (PATH, HOME, TMPDIR and `env`). */
export function runCliInProcess(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {}
): Promise<CliRun> {
  const next = queue.then(() =>
    inStep({ ...baseEnv(), ...options.env }, options.cwd ?? PROJECT_ROOT, async (captured) => {
      const started = Date.now()
      const exitCode = await cli(args)
      return { exitCode, ...captured, durationMs: Date.now() - started }
    })
  )
  queue = next.catch(() => undefined)
  return next
}

async function runOnce(options: ActionRunOptions): Promise<ActionRun> {
  const runner = runnerFiles(options)
  try {
    return await inStep(runner.env, options.workspace, async (captured) => {
      const started = Date.now()
      await run()
      const exitCode = Number(process.exitCode ?? 0)
      return { exitCode, ...captured, durationMs: Date.now() - started, ...runner.read() }
    })
  } finally {
    runner.remove()
  }
}

/** Runs `step` with this environment, working directory and captured stdout/stderr, then puts them back. */
async function inStep<T>(
  env: Record<string, string>,
  cwd: string,
  step: (captured: { stdout: string; stderr: string }) => Promise<T>
): Promise<T> {
  const saved = {
    env: process.env,
    cwd: process.cwd(),
    exitCode: process.exitCode,
    stdout: process.stdout.write,
    stderr: process.stderr.write
  }
  const captured = { stdout: '', stderr: '' }
  try {
    process.env = { ...env }
    process.chdir(cwd)
    process.exitCode = undefined
    process.stdout.write = capture(captured, 'stdout')
    process.stderr.write = capture(captured, 'stderr')
    return await step(captured)
  } finally {
    process.stdout.write = saved.stdout
    process.stderr.write = saved.stderr
    process.exitCode = saved.exitCode
    process.chdir(saved.cwd)
    process.env = saved.env
  }
}

function capture(into: { stdout: string; stderr: string }, stream: 'stdout' | 'stderr') {
  return ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    into[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined
    done?.()
    return true
  }) as typeof process.stdout.write
}
