import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { accessSync, constants, readFileSync } from 'node:fs'

/**
 * Every process a run starts dies with it, even when the run is killed where no handler runs
 * (SIGKILL): each child is started through a supervisor, a `/bin/sh` that `setpriv --pdeathsig
 * TERM` arms (PR_SET_PDEATHSIG, no native addon), leads its own process group, runs the command
 * in that group and, when Node dies, kills the whole group. The sandboxes' PID namespaces end
 * with their first process (bubblewrap's --die-with-parent, unshare's --kill-child), which is
 * in that group. The groups of long-lived commands are also recorded in the run's journal (see
 * RunProcesses), so a later run can stop what is left where the kernel's signal did not come
 * (no setpriv, a setuid sudo in between, a process that left the group).
 */
const SUPERVISE = 'trap "kill -KILL 0" TERM HUP; exec 3<&0; "$@" <&3 3<&- & wait $!'

interface Program {
  file: string
  args: string[]
}

let found: { setpriv?: string; setsid?: string } | undefined

function programs(): { setpriv?: string; setsid?: string } {
  const find = (name: string) =>
    ['/usr/bin', '/bin', '/usr/sbin', '/sbin']
      .map((dir) => `${dir}/${name}`)
      .find((path) => {
        try {
          accessSync(path, constants.X_OK)
          return true
        } catch {
          return false
        }
      })
  found ??= { setpriv: find('setpriv'), setsid: find('setsid') }
  return found
}

/**
 * `program` under the supervisor. `leader`: the child is started as a process group leader
 * already (spawn's `detached`); otherwise `setsid` makes the supervisor one. Without setpriv
 * (not Linux) the program runs as it is.
 */
export function supervised(program: Program, leader: boolean): Program {
  const { setpriv, setsid } = programs()
  if (!setpriv) return program
  if (!leader && !setsid)
    return { file: setpriv, args: ['--pdeathsig', 'KILL', '--', program.file, ...program.args] }
  const shell = ['/bin/sh', '-c', SUPERVISE, 'patchsmith-supervisor', program.file]
  return {
    file: setpriv,
    args: ['--pdeathsig', 'TERM', '--', ...(leader ? [] : [setsid!]), ...shell, ...program.args]
  }
}

/** A short-lived program that must still not outlive the run: killed with it, no group. */
export function diesWithRun(program: Program): Program {
  const { setpriv } = programs()
  if (!setpriv) return program
  return { file: setpriv, args: ['--pdeathsig', 'KILL', '--', program.file, ...program.args] }
}

/** One process group the run started: its leader's pid and start time (ticks since boot). */
export interface RunProcess {
  pid: number
  startTime: string
}

/** The run's live process groups; listeners hear of each change (the journal records them). */
class RunProcesses {
  private readonly live = new Map<number, string>()
  private readonly listeners = new Set<() => void>()

  track(pid: number | undefined): void {
    const startTime = pid ? processStartTime(pid) : undefined
    if (!pid || !startTime) return
    this.live.set(pid, startTime)
    this.notify()
  }

  untrack(pid: number | undefined): void {
    if (pid && this.live.delete(pid)) this.notify()
  }

  snapshot(): RunProcess[] {
    return [...this.live].map(([pid, startTime]) => ({ pid, startTime }))
  }

  /** Returns the function that stops listening. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener()
      } catch {
        // A journal that cannot be written says so at its next regular write.
      }
    }
  }
}

/** This process's groups (one run per process). */
export const runProcesses = new RunProcesses()

export interface CollectedOutput {
  exitCode: number
  stdout: string
  stderr: string
  /** Its whole group was killed at `timeoutMs` (exit code 124). */
  timedOut?: boolean
}

/**
 * Runs a program to its end under the supervisor and collects its output; `track` records its
 * group in `runProcesses` while it runs; `timeoutMs` kills the whole group then. Rejects only
 * when it cannot be started.
 */
export function runSupervised(
  program: Program,
  options: {
    cwd: string
    env: Record<string, string>
    input?: string
    track?: boolean
    timeoutMs?: number
  }
): Promise<CollectedOutput> {
  const spec = supervised(program, true)
  const child = spawn(spec.file, spec.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true
  })
  if (options.track) runProcesses.track(child.pid)
  let timedOut = false
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL')
          } catch {
            // the group is already gone
          }
        }, options.timeoutMs)
  return collectedOutput(child, options.input)
    .finally(() => {
      clearTimeout(timer)
      runProcesses.untrack(child.pid)
    })
    .then((output) => {
      if (!timedOut) return output
      const killed = `\nKilled after ${options.timeoutMs} ms (command-timeout).`
      return { ...output, exitCode: 124, stderr: output.stderr + killed, timedOut }
    })
}

/**
 * A started child's output and exit code once it has ended and its output is closed, its input
 * written first (where it ended before reading it all, the EPIPE is no error: its exit code and
 * what it printed tell why). Rejects only when it could not be started.
 */
export function collectedOutput(
  child: ChildProcessWithoutNullStreams,
  input: string | Buffer | undefined
): Promise<CollectedOutput> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.stdin.on('error', () => undefined)
    child.stdin.end(input ?? '')
    let exitCode = 1
    child.on('exit', (code, signal) => {
      exitCode = code ?? (signal ? 128 + 9 : 1)
    })
    child.on('error', reject)
    child.on('close', () => {
      const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8')
      resolve({ exitCode, stdout: text(out), stderr: text(err) })
    })
  })
}

/**
 * When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid
 * it names one process for the life of the machine, so a reused pid is told apart. Undefined
 * without /proc (macOS) or when the process is gone.
 */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.startTime
}

/** State, process group and start time from /proc/<pid>/stat. */
export function procStat(
  pid: number
): { state: string; pgrp: number; startTime: string } | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (the state), so field 5 is fields[2] and field 22 is fields[19].
  const startTime = fields[19]
  if (!startTime || !/^\d+$/.test(startTime)) return undefined
  return { state: fields[0] ?? '', pgrp: Number(fields[2]), startTime }
}
