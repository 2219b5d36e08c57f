import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import {
  collectedOutput,
  diesWithRun,
  runSupervised,
  type CollectedOutput
} from '../sandbox/index.js'
import { watchedForFifos } from './fifo-watch.js'

interface GitProcessOptions {
  cwd: string
  env: Record<string, string | undefined>
  input?: Buffer
  silent?: boolean
  ignoreReturnCode?: boolean
  /** Can start programs of its own or take long: a remote, hooks, a sandbox. */
  long?: boolean
  /** A long command's limit: its whole group is killed then (exit code 124, `timedOut`). */
  timeoutMs?: number
}

/**
 * One git process that dies with the run (lifetime.ts). A quick local command is killed with
 * it; one that can start programs of its own or take long (`long`: talking to a remote, running
 * hooks, a sandbox) runs under the group supervisor, recorded in the journal while it runs.
 */
export async function gitProcess(
  file: string,
  args: readonly string[],
  options: GitProcessOptions
): Promise<CollectedOutput> {
  const env = Object.fromEntries(
    Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined)
  )
  assertFits(file, args, env)
  if (options.long)
    return watchedForFifos(() =>
      runSupervised(
        { file, args: [...args] },
        {
          cwd: options.cwd,
          env,
          input: options.input?.toString('utf8'),
          track: true,
          timeoutMs: options.timeoutMs
        }
      )
    )
  const program = diesWithRun({ file, args: [...args] })
  // By hand, not @actions/exec: that wrote the input with no error handler, so a git that
  // exited before reading it (a config it cannot parse) crashed the run with EPIPE.
  return watchedForFifos(() =>
    collectedOutput(
      spawn(program.file, program.args, { cwd: options.cwd, env, stdio: 'pipe' }),
      options.input
    )
  )
}

/** Linux's limits on one argument and on a command line with its environment (execve(2)). */
const MOST_ARGUMENT_BYTES = 128 * 1024 - 1
const MOST_COMMAND_LINE_BYTES = 2 * 1024 * 1024 - 64 * 1024

/**
 * Refuses a command line the kernel would, naming the subcommand: spawn's E2BIG names none.
 */
function assertFits(file: string, args: readonly string[], env: Record<string, string>): void {
  const words = [file, ...args, ...Object.entries(env).map(([key, value]) => `${key}=${value}`)]
  const sizes = words.map((word) => Buffer.byteLength(word) + 1)
  const total = sizes.reduce((sum, size) => sum + size + 8, 0)
  if (sizes.some((size) => size > MOST_ARGUMENT_BYTES) || total > MOST_COMMAND_LINE_BYTES) {
    // The subcommand: the first word that is neither an option nor a `-c` setting.
    const name = args.find((arg, i) => !arg.startsWith('-') && args[i - 1] !== '-c') ?? ''
    throw new Error(
      `git ${name}: its command line (${total} bytes) is longer than the system allows`
    )
  }
}

/**
 * A long-lived local git process (`cat-file --batch`) that dies with the run like a quick one;
 * its caller writes its requests, reads its answers and ends it.
 */
export function gitBatchProcess(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> }
): ChildProcessWithoutNullStreams {
  const program = diesWithRun({ file, args: [...args] })
  return spawn(program.file, program.args, { cwd: options.cwd, env: options.env, stdio: 'pipe' })
}
