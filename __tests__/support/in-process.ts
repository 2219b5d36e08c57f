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
 */
import { run } from '../../src/main.js'
import { runnerFiles, type ActionRun, type ActionRunOptions } from './action-runner.js'

let queue: Promise<unknown> = Promise.resolve()

export function runActionInProcess(options: ActionRunOptions): Promise<ActionRun> {
  if (options.signals) throw new Error('runActionInProcess: signals need a process; use runAction')
  const next = queue.then(() => runOnce(options))
  queue = next.catch(() => undefined)
  return next
}

async function runOnce(options: ActionRunOptions): Promise<ActionRun> {
  const runner = runnerFiles(options)
  const saved = {
    env: process.env,
    cwd: process.cwd(),
    exitCode: process.exitCode,
    stdout: process.stdout.write,
    stderr: process.stderr.write
  }
  const captured = { stdout: '', stderr: '' }
  const started = Date.now()
  try {
    process.env = { ...runner.env }
    process.chdir(options.workspace)
    process.exitCode = undefined
    process.stdout.write = capture(captured, 'stdout')
    process.stderr.write = capture(captured, 'stderr')
    await run()
    const exitCode = Number(process.exitCode ?? 0)
    return { exitCode, ...captured, durationMs: Date.now() - started, ...runner.read() }
  } finally {
    process.stdout.write = saved.stdout
    process.stderr.write = saved.stderr
    process.exitCode = saved.exitCode
    process.chdir(saved.cwd)
    process.env = saved.env
    runner.remove()
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
