import { randomUUID } from 'node:crypto'
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeFolder } from './private-file.js'
import { GitConflictError } from '../contract/index.js'
import { processStartTime } from './process-start.js'
import { gitDirs } from '../git/index.js'

interface LockRecord {
  pid: number
  started: string
  /** The holder's start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  startTime?: string
  runId?: string
}

/** A lock that was not a live run's, taken over; said by the caller. */
interface StaleLock {
  pid?: number
  started?: string
  why: string
}

/**
 * One run per work tree: `.git/patchsmith/lock` holds the pid, the process start time and a
 * random id of the run that owns it. A second run is refused at once (`run-in-progress`). The
 * lock is stale, and taken over, when its pid is gone, or alive but a different process (its
 * start time differs: the pid was reused, or the lock names pid 1). Created with O_EXCL, and a
 * stale one is renamed away before it is removed, so two runs cannot both win.
 */
export class RunLock {
  private constructor(
    private readonly file: string,
    private readonly runId: string,
    /** The stale lock this run took over, if it took one over. */
    readonly replaced?: StaleLock
  ) {}

  static acquire(repoDir: string): RunLock {
    const folder = join(gitDirs(repoDir)[0]!, 'patchsmith')
    makeFolder(folder)
    const file = join(folder, 'lock')
    const runId = randomUUID()
    const startTime = processStartTime(process.pid)
    const record: LockRecord = {
      pid: process.pid,
      started: new Date().toISOString(),
      ...(startTime ? { startTime } : {}),
      runId
    }
    let replaced: StaleLock | undefined
    for (let tries = 0; tries < 3; tries++) {
      try {
        writeFileSync(file, `${JSON.stringify(record)}\n`, { flag: 'wx', mode: 0o600 })
        return new RunLock(file, runId, replaced)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const text = readText(file)
      if (text === undefined) continue
      const holder = parseHolder(text)
      const why = staleness(holder)
      if (!why) throw inProgress(holder!)
      // Renamed away first: if another run replaced the stale lock meanwhile, it is put back.
      const aside = `${file}.${runId}`
      try {
        renameSync(file, aside)
      } catch {
        continue
      }
      if (readText(aside) !== text) {
        try {
          linkSync(aside, file)
        } catch {
          // A third run holds the lock now: this one still is not the owner.
        }
        rmSync(aside, { force: true })
        throw inProgress(parseHolder(readText(file) ?? '') ?? { pid: 0, started: 'just now' })
      }
      rmSync(aside, { force: true })
      replaced = { pid: holder?.pid, started: holder?.started, why }
    }
    throw new GitConflictError('Could not take the repository lock of a stale run.', {
      rule: 'run-in-progress'
    })
  }

  /** Removes the lock, only while it is still this run's. */
  release(): void {
    if (parseHolder(readText(this.file) ?? '')?.runId === this.runId)
      rmSync(this.file, { force: true })
  }
}

function inProgress(holder: LockRecord): GitConflictError {
  return new GitConflictError(
    `Another Patchsmith run (pid ${holder.pid}, started ${holder.started}) is working in this repository; run one at a time (a workflow's concurrency group does that). If no run is going on, \`patchsmith recover\` clears a stale lock.`,
    { rule: 'run-in-progress', pid: holder.pid, started: holder.started },
    true
  )
}

/** Why the lock is not a live run's, or undefined when it is. */
function staleness(holder: LockRecord | undefined): string | undefined {
  if (!holder) return 'it could not be read'
  if (!alive(holder.pid)) return `pid ${holder.pid} is gone`
  const now = processStartTime(holder.pid)
  // Without /proc (macOS) only the pid can be checked; init is never a run there.
  if (now === undefined && processStartTime(process.pid) === undefined)
    return holder.pid === 1 ? 'pid 1 is the system, not a run' : undefined
  if (!holder.startTime) return `it records no start time for pid ${holder.pid}`
  if (now !== holder.startTime) return `pid ${holder.pid} is now another process`
  return undefined
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

function parseHolder(text: string): LockRecord | undefined {
  try {
    const record = JSON.parse(text) as Partial<LockRecord>
    if (!Number.isSafeInteger(record.pid) || record.pid! <= 0) return undefined
    return {
      pid: record.pid!,
      started: String(record.started),
      ...(typeof record.startTime === 'string' ? { startTime: record.startTime } : {}),
      ...(typeof record.runId === 'string' ? { runId: record.runId } : {})
    }
  } catch {
    return undefined
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
