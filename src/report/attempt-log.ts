import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface LoggedRequest {
  path: string
  messages: unknown
}

export interface LoggedCommand {
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
  constructor(
    readonly dir: string,
    private readonly mask: (text: string) => string
  ) {
    // Only the runner's user may read them: they hold prompts, replies and command output.
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chmodSync(dir, 0o700)
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
    const path = join(this.dir, `${String(attempt).padStart(2, '0')}-${name}`)
    writeFileSync(path, this.mask(text), { mode: 0o600 })
  }
}
