import { lstatSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { privateFolder, writePrivateFile } from './private-file.js'
import { runProcesses } from '../sandbox/index.js'
import { loadJournalKey, journalTag, tagMatches } from './journal-key.js'
import { parseJournalRecord, type JournalRecord } from './journal-record.js'
import { gitDirs } from '../git/index.js'

export type { JournalRecord } from './journal-record.js'

const FORMAT = 'patchsmith-journal/2'
const MAX_BYTES = 4 << 20

/** A journal as found: one Patchsmith wrote for this repository, or one it must not carry out. */
export type JournalReading =
  | { verified: true; record: JournalRecord }
  | {
      verified: false
      /** Why it is not carried out, as the end of a sentence ("it …"). */
      problem: string
      /** What it claims, for the message only: never acted on. */
      claimed: { pid?: unknown; branch?: unknown; base?: unknown; started?: unknown }
    }

/**
 * `.git/patchsmith/journal.json`: the record (see journalRecordSchema) as a string, and an
 * HMAC-SHA256 tag over it and the git folder's real path, keyed outside the repository
 * (journal-key.ts). A record without a valid tag, or with a value Patchsmith never writes, is
 * not carried out. Without a usable key the record is still written, untagged: a human can read
 * it, no run obeys it.
 */
export class RunJournal {
  /** The last record written, rewritten with the run's process groups whenever they change. */
  private last?: JournalRecord
  private unsubscribe?: () => void

  private constructor(readonly file: string) {}

  static for(repoDir: string): RunJournal {
    return new RunJournal(join(gitDirs(repoDir)[0]!, 'patchsmith', 'journal.json'))
  }

  read(): JournalReading | undefined {
    let text: string
    try {
      const stat = lstatSync(this.file)
      if (!stat.isFile()) return unverified('is not a regular file')
      if (stat.size > MAX_BYTES) return unverified('is larger than any journal Patchsmith writes')
      text = readFileSync(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      return unverified(`cannot be read (${(error as Error).message})`)
    }
    let outer: { format?: unknown; record?: unknown; tag?: unknown }
    try {
      outer = JSON.parse(text) as typeof outer
    } catch {
      return unverified('is not JSON')
    }
    if (outer === null || typeof outer !== 'object' || outer.format !== FORMAT)
      return unverified('is not in the format this Patchsmith writes', claims(outer))
    if (typeof outer.record !== 'string') return unverified('holds no record', {})
    let inner: unknown
    try {
      inner = JSON.parse(outer.record)
    } catch {
      return unverified('holds a record that is not JSON', {})
    }
    const claimed = claims(inner)
    if (outer.tag === null || outer.tag === undefined)
      return unverified(
        'carries no integrity tag (no journal key was usable when written)',
        claimed
      )
    const key = loadJournalKey(false)
    if ('problem' in key) return unverified(`cannot be checked: ${key.problem}`, claimed)
    if (!tagMatches(key.key, this.scope(), outer.record, outer.tag))
      return unverified(
        'does not carry a valid integrity tag: it was not written by Patchsmith as this user for this repository',
        claimed
      )
    const parsed = parseJournalRecord(inner)
    if ('problem' in parsed)
      return unverified(`holds a value Patchsmith never writes (${parsed.problem})`, claimed)
    return { verified: true, record: parsed.record }
  }

  /** Written whole and renamed into place, so a kill mid-write leaves the previous record. */
  write(record: JournalRecord): void {
    this.last = record
    this.unsubscribe ??= runProcesses.onChange(() => {
      if (this.last) this.write(this.last)
    })
    const processes = runProcesses.snapshot()
    const body = JSON.stringify(processes.length > 0 ? { ...record, processes } : record)
    const key = loadJournalKey(true)
    const tag = 'key' in key ? journalTag(key.key, this.scope(), body) : null
    writePrivateFile(this.file, `${JSON.stringify({ format: FORMAT, record: body, tag })}\n`)
  }

  remove(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.last = undefined
    rmSync(this.file, { force: true })
  }

  /** Moves a journal that is not carried out out of the way, kept for a person to read. */
  setAside(): string {
    const kept = join(this.file, '..', 'journal.unverified.json')
    renameSync(this.file, kept)
    return kept
  }

  /** What the tag binds the record to: this git folder, so another repository's does not do. */
  private scope(): string {
    return `${FORMAT}\0${realpathSync(privateFolder(join(this.file, '..')))}`
  }
}

function unverified(
  problem: string,
  claimed: Extract<JournalReading, { verified: false }>['claimed'] = {}
): JournalReading {
  return { verified: false, problem, claimed }
}

function claims(value: unknown): Extract<JournalReading, { verified: false }>['claimed'] {
  if (value === null || typeof value !== 'object') return {}
  const { pid, branch, base, started } = value as Record<string, unknown>
  return { pid, branch, base, started }
}
