import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { lstatSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join } from 'node:path'
import { makeFolder } from './private-file.js'

/**
 * The secret that signs a run's journal, so that a journal only Patchsmith could have written is
 * carried out. Where it lives, and why:
 *
 * - outside the repository: whatever can write `.git` (a hook, a hostile checkout, validation
 *   with `sandbox: off`) must not be able to forge a journal the next run obeys with the token;
 * - under the user's state folder ($XDG_STATE_HOME or ~/.local/state), not RUNNER_TEMP: that is
 *   emptied after every job, while a killed job's journal is recovered by a later job on the same
 *   (self-hosted) runner's work tree, so the key must outlive the job;
 * - the sandbox gives validation a fresh, empty HOME, so model-written code never sees it. With
 *   `sandbox: off` validation runs as this user and can read it: then the tag proves nothing
 *   against that code, and the value checks on the record are what is left.
 */
export function journalKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const state =
    env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : join(env.HOME || homedir(), '.local', 'state')
  return join(state, 'patchsmith', 'journal-key')
}

/**
 * The key's folder, for the sandbox to hide; the key is made first (when it can be), so that a
 * folder outside HOME (an $XDG_STATE_HOME elsewhere) exists when the jail is laid out.
 */
export function journalKeyFolder(): string {
  loadJournalKey(true)
  return dirname(journalKeyPath())
}

const cache = new Map<string, Buffer>()

/**
 * The key, created (0600, in a 0700 folder) on first use when `create` is set. A key file that
 * is not a regular file of this user, or that others can read or replace, is not used.
 */
export function loadJournalKey(create: boolean): { key: Buffer } | { problem: string } {
  const file = journalKeyPath()
  const cached = cache.get(file)
  if (cached) return { key: cached }
  try {
    const loaded = readKey(file)
    if (loaded) return remember(file, loaded)
    if (!create) return { problem: `there is no journal key (${file})` }
    makeFolder(dirname(file))
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 })
    } catch (error) {
      // Another run created it first: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const made = readKey(file)
    return made ? remember(file, made) : { problem: `the journal key ${file} could not be read` }
  } catch (error) {
    return { problem: `the journal key ${file} cannot be used: ${(error as Error).message}` }
  }
}

function remember(file: string, key: Buffer): { key: Buffer } {
  cache.set(file, key)
  return { key }
}

/** undefined when there is no file; throws when there is one that must not be trusted. */
function readKey(file: string): Buffer | undefined {
  let stat
  try {
    stat = lstatSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const uid = process.getuid?.()
  const folder = lstatSync(dirname(file))
  if (!stat.isFile()) throw new Error('it is not a regular file')
  if (uid !== undefined && (stat.uid !== uid || folder.uid !== uid))
    throw new Error('it belongs to another user')
  // Windows has no such mode bits (a user's profile folder is private there).
  const posix = process.platform !== 'win32'
  if (posix && ((stat.mode & 0o077) !== 0 || (folder.mode & 0o022) !== 0))
    throw new Error('others can read or replace it (chmod 600 the file, 700 its folder)')
  const text = readFileSync(file, 'utf8').trim()
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error('it does not hold a key')
  return Buffer.from(text, 'hex')
}

/** HMAC-SHA256 over what is signed and where it belongs (the git folder), as hex. */
export function journalTag(key: Buffer, scope: string, body: string): string {
  return createHmac('sha256', key).update(`${scope}\0${body}`).digest('hex')
}

export function tagMatches(key: Buffer, scope: string, body: string, tag: unknown): boolean {
  if (typeof tag !== 'string' || !/^[0-9a-f]{64}$/.test(tag)) return false
  return timingSafeEqual(Buffer.from(journalTag(key, scope, body), 'hex'), Buffer.from(tag, 'hex'))
}
