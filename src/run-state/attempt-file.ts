import { lstatSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { privateFolder, writePrivateFile } from './private-file.js'
import { lastAttemptSchema, type LastAttempt } from '../contract/index.js'
import { journalTag, loadJournalKey, tagMatches } from './journal-key.js'
import { gitDirs } from '../git/index.js'

const FORMAT = 'patchsmith-attempt/1'
const MAX_BYTES = 8 << 20

/**
 * `.git/patchsmith/last-attempt.json`, beside the journal: the run's last applied attempt (its
 * diff and validation), written as the run goes, so `resume` can follow a run that was killed
 * before it wrote a result. Tagged like the journal (HMAC over the record and this git folder,
 * keyed outside the repository): an untagged or altered file is never resumed from. Recovery
 * leaves it; the run that wrote it removes it once its result is written.
 */
export class AttemptFile {
  private constructor(readonly file: string) {}

  static for(repoDir: string): AttemptFile {
    return new AttemptFile(join(gitDirs(repoDir)[0]!, 'patchsmith', 'last-attempt.json'))
  }

  /** The attempt and when it was written, or why it is not used; undefined when absent. */
  read(): { attempt: LastAttempt; writtenMs: number } | { problem: string } | undefined {
    let text: string
    let writtenMs: number
    try {
      const stat = lstatSync(this.file)
      if (!stat.isFile() || stat.size > MAX_BYTES) return { problem: 'is not a file it wrote' }
      writtenMs = stat.mtimeMs
      text = readFileSync(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      return { problem: `cannot be read (${(error as Error).message})` }
    }
    try {
      const outer = JSON.parse(text) as { format?: unknown; record?: unknown; tag?: unknown }
      if (outer?.format !== FORMAT || typeof outer.record !== 'string')
        return { problem: 'is not in the format this Patchsmith writes' }
      const key = loadJournalKey(false)
      if ('problem' in key) return { problem: `cannot be checked: ${key.problem}` }
      if (!tagMatches(key.key, this.scope(), outer.record, outer.tag))
        return { problem: 'does not carry a valid integrity tag' }
      const parsed = lastAttemptSchema().safeParse(JSON.parse(outer.record))
      if (!parsed.success) return { problem: 'holds a value Patchsmith never writes' }
      return { attempt: parsed.data, writtenMs }
    } catch {
      return { problem: 'is not JSON' }
    }
  }

  /** Written whole and renamed into place; without a usable key nothing is written. */
  write(attempt: LastAttempt): void {
    const key = loadJournalKey(true)
    if (!('key' in key)) return
    const record = JSON.stringify(attempt)
    const tag = journalTag(key.key, this.scope(), record)
    writePrivateFile(this.file, `${JSON.stringify({ format: FORMAT, record, tag })}\n`)
  }

  remove(): void {
    rmSync(this.file, { force: true })
  }

  private scope(): string {
    return `${FORMAT}\0${realpathSync(privateFolder(join(this.file, '..')))}`
  }
}
