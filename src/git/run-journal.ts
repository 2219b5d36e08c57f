import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Git } from './git.js'
import type { PushAuth } from './push-auth.js'
import { gitDirs } from './repo-integrity.js'

/**
 * What a run must put back if it dies where no handler runs (SIGKILL, a runner that is gone):
 * written before each change to the repository, removed when the run has put everything back.
 */
export interface JournalRecord {
  pid: number
  started: string
  /** The branch the run started on (undefined: detached at `startHead`). */
  startBranch?: string
  startHead: string
  base: string
  baseSha: string
  branch: string
  /** The stash message, set before `git stash push`; the stash's SHA once it exists. */
  stashMessage?: string
  stash?: string
  leftStart: boolean
  createdLocal: boolean
  /** Set before the first apply: the work tree holds the run's edits from then on. */
  worktreeChanged: boolean
  /** push: false: commits were made on the base branch. */
  baseMoved: boolean
  /** The run's commits; a branch on origin is deleted only when its tip is one of them. */
  commits: string[]
  pushing: boolean
  touched: string[]
}

export class RunJournal {
  private constructor(private readonly file: string) {}

  static for(repoDir: string): RunJournal {
    return new RunJournal(join(gitDirs(repoDir)[0]!, 'patchsmith', 'journal.json'))
  }

  read(): JournalRecord | undefined {
    if (!existsSync(this.file)) return undefined
    try {
      const record = JSON.parse(readFileSync(this.file, 'utf8')) as JournalRecord
      return typeof record.startHead === 'string' && typeof record.branch === 'string'
        ? record
        : undefined
    } catch {
      return undefined
    }
  }

  /** Written whole and renamed into place, so a kill mid-write leaves the previous record. */
  write(record: JournalRecord): void {
    mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 })
    const temp = `${this.file}.tmp`
    writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 })
    renameSync(temp, this.file)
  }

  remove(): void {
    rmSync(this.file, { force: true })
  }
}

/**
 * Puts back what a dead run changed, from its journal: its edits and commits undone, the branch
 * it created deleted (on origin only when the tip there is its own commit), the checkout back
 * where it started and the user's stashed changes back in place. Returns what was done, and
 * what could not be, as sentences.
 */
export async function recoverFromJournal(
  git: Git,
  record: JournalRecord,
  auth?: PushAuth
): Promise<{ done: string[]; problems: string[] }> {
  const done: string[] = []
  const problems: string[] = []
  const step = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action()
      done.push(what)
    } catch (error) {
      problems.push(`${what}: ${(error as Error).message}`)
    }
  }
  const stash = record.stash ?? (await stashByMessage(git, record.stashMessage))
  const touchedTree =
    record.worktreeChanged || record.baseMoved || record.leftStart || record.createdLocal
  if (touchedTree) {
    const start = record.startBranch ?? record.startHead
    await step(`checked out ${start}`, () => git.checkout(start, { force: true }))
    if (record.baseMoved && record.base === record.startBranch)
      await step(`moved ${record.base} back to ${record.baseSha.slice(0, 12)}`, () =>
        git.resetHard(record.baseSha)
      )
    else if (record.baseMoved)
      await step(`moved ${record.base} back to ${record.baseSha.slice(0, 12)}`, () =>
        git.exec(['update-ref', `refs/heads/${record.base}`, record.baseSha])
      )
    if (record.touched.length > 0)
      await step('removed the files the run created', () => git.cleanPaths(record.touched))
  }
  if (record.createdLocal || record.baseMoved) {
    const tip = await git.tryRevParse(`refs/heads/${record.branch}`)
    if (tip && (record.commits.includes(tip) || tip === record.baseSha))
      await step(`deleted the branch ${record.branch}`, () => git.deleteLocalBranch(record.branch))
  }
  if (record.pushing) {
    const heads = await git.remoteHeads('origin', record.branch, auth?.env).catch((error) => {
      problems.push(`look for ${record.branch} on origin: ${(error as Error).message}`)
      return undefined
    })
    if (heads?.tip && record.commits.includes(heads.tip))
      await step(`deleted the branch ${record.branch} on origin`, async () => {
        const out = await git.push('origin', `:refs/heads/${record.branch}`, auth?.env)
        if (out.exitCode !== 0) throw new Error(out.stderr.trim())
      })
  }
  if (stash) {
    await step('put the uncommitted changes back', async () => {
      const out = await git.stashRestore(stash)
      if (out.exitCode !== 0)
        throw new Error(`they are kept in the stash (${stash.slice(0, 12)}): ${out.stderr.trim()}`)
    })
  }
  return { done, problems }
}

/** A stash pushed just before the run died, before its SHA reached the journal. */
async function stashByMessage(git: Git, message: string | undefined): Promise<string | undefined> {
  if (!message) return undefined
  const top = await git.tryRevParse('refs/stash')
  if (!top) return undefined
  const subject = await git.exec(['log', '-1', '--format=%s', top], { allowFailure: true })
  return subject.stdout.trim().endsWith(message) ? top : undefined
}

export interface Recovery {
  record: JournalRecord
  done: string[]
  problems: string[]
}

/**
 * A dead run's journal, if the repository has one, carried out; the journal is removed once
 * everything was put back, and kept (for another try, by hand) otherwise. Call with the run lock
 * held: a journal then belongs to a run that is gone.
 */
export async function recoverRepository(
  repoDir: string,
  auth?: PushAuth
): Promise<Recovery | undefined> {
  const journal = RunJournal.for(repoDir)
  const record = journal.read()
  if (!record) return undefined
  const result = await recoverFromJournal(await Git.open(repoDir), record, auth)
  if (result.problems.length === 0) journal.remove()
  return { record, ...result }
}
