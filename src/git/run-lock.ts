import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GitConflictError } from '../contract/index.js'
import { gitDirs } from './repo-integrity.js'

interface LockRecord {
  pid: number
  started: string
}

/**
 * One run per work tree: `.git/patchsmith/lock` holds the pid and start time of the run that
 * owns it. A second run is refused at once (`run-in-progress`); the lock of a process that is
 * gone is taken over. Created with O_EXCL, so two runs starting together cannot both win.
 */
export class RunLock {
  private constructor(private readonly file: string) {}

  static acquire(repoDir: string): RunLock {
    const folder = join(gitDirs(repoDir)[0]!, 'patchsmith')
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const file = join(folder, 'lock')
    const record: LockRecord = { pid: process.pid, started: new Date().toISOString() }
    for (let tries = 0; tries < 2; tries++) {
      try {
        writeFileSync(file, `${JSON.stringify(record)}\n`, { flag: 'wx', mode: 0o600 })
        return new RunLock(file)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const holder = readHolder(file)
      if (holder && alive(holder.pid)) {
        throw new GitConflictError(
          `Another Patchsmith run (pid ${holder.pid}, started ${holder.started}) is working in this repository; run one at a time (a workflow's concurrency group does that).`,
          { rule: 'run-in-progress', pid: holder.pid, started: holder.started },
          true
        )
      }
      // The run that held it is gone (killed, or the runner died): its lock is stale.
      rmSync(file, { force: true })
    }
    throw new GitConflictError('Could not take the repository lock of a stale run.', {
      rule: 'run-in-progress'
    })
  }

  release(): void {
    rmSync(this.file, { force: true })
  }
}

function readHolder(file: string): LockRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockRecord>
    return typeof record.pid === 'number'
      ? { pid: record.pid, started: String(record.started) }
      : undefined
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
