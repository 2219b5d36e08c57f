import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  writeSync
} from 'node:fs'
import { join } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'

interface LoggedRequest {
  path: string
  messages: unknown
}

interface LoggedCommand {
  command: string
  exit_code: number
  duration_ms: number
  stdout: string
  stderr: string
}

/**
 * The numbered record of each attempt (`01-request.json`, `01-reply.txt`, `01-build.txt`, …)
 * in a folder outside the work tree: uploaded with the artifact, never committed. Every text
 * passes through `mask` before it is written.
 */
export class AttemptLog {
  /** The folder as made: its real path and identity, so a swapped one is never written into. */
  private readonly real: string
  private readonly identity: string

  constructor(
    readonly dir: string,
    private readonly mask: (text: string) => string
  ) {
    // Only the runner's user may read them: they hold prompts, replies and command output.
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chmodSync(dir, 0o700)
    this.real = realpathSync(dir)
    this.identity = identityOf(this.real)
  }

  requests(attempt: number, requests: LoggedRequest[]): void {
    this.write(attempt, 'request.json', JSON.stringify(requests, null, 2))
  }

  replies(attempt: number, replies: Array<{ path: string; text: string }>): void {
    this.write(
      attempt,
      'reply.txt',
      replies.map((r) => `=== ${r.path} ===\n${r.text}\n`).join('\n')
    )
  }

  build(attempt: number, commands: LoggedCommand[], note?: string): void {
    const sections = commands.map(
      (c) =>
        `$ ${c.command}\nexit code: ${c.exit_code} (${c.duration_ms} ms)\n--- stdout ---\n${c.stdout}\n--- stderr ---\n${c.stderr}\n`
    )
    if (note) sections.push(note)
    this.write(attempt, 'build.txt', sections.join('\n'))
  }

  private write(attempt: number, name: string, text: string): void {
    // A log folder inside the work tree can be moved aside by validation (renaming a parent of
    // the jail's cover) and another put in its place, holding links to the runner's files.
    if (realOf(this.dir) !== this.real || identityOf(this.real) !== this.identity)
      throw new SecurityViolationError(
        `The attempt-log folder ${this.dir} was replaced while commands ran; nothing more is written there [rule unexpected-changes].`,
        { rule: 'unexpected-changes', stage: 'validation' }
      )
    const path = join(this.real, `${String(attempt).padStart(2, '0')}-${name}`)
    const fd = openSync(path, WRITE_FLAGS, 0o600)
    try {
      writeSync(fd, this.mask(text))
    } finally {
      closeSync(fd)
    }
  }
}

const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW

function realOf(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

function identityOf(path: string): string {
  const stat = lstatSync(path, { throwIfNoEntry: false })
  return stat?.isDirectory() ? `${stat.dev}:${stat.ino}` : 'none'
}
