import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { watchedForFifos } from './fifo-watch.js'
import { GitCommandError } from './git-output.js'

type ObjectType = 'blob' | 'tree' | 'commit' | 'tag'

export interface GitObject {
  sha: string
  type: ObjectType
  /** Bytes, as git stores them. */
  size: number
  /** Empty when `size` is over the read's `maxBytes` (the bytes were skipped, not kept). */
  content: Buffer
}

const HEADER = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (blob|tree|commit|tag) (\d+)$/

/** The running process and the bytes it has sent that no answer has taken yet. */
export class Batch {
  private readonly chunks: Buffer[] = []
  private buffered = 0
  private wake?: () => void
  private ended?: Error

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    const fail = (error: Error) => {
      this.ended ??= error
      this.wake?.()
    }
    child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk)
      this.buffered += chunk.length
      this.wake?.()
    })
    // What git said as it ended (a config it cannot parse): the failure is git's, with its words,
    // once they are all read; not a bare EPIPE of the request it never read.
    let said = ''
    child.stderr.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-2_000)))
    const ended = () => {
      const error = () =>
        said.trim()
          ? new GitCommandError(['cat-file', '--batch'], {
              exitCode: child.exitCode ?? 128,
              stdout: '',
              stderr: said
            })
          : new Error('git cat-file --batch ended')
      if (child.stderr.readableEnded) fail(error())
      else child.stderr.once('end', () => fail(error()))
    }
    child.stdout.on('close', ended)
    child.on('error', fail)
    child.stdin.on('error', ended)
    // Idle, it keeps nothing alive: it is ended with the run, and dies with this process.
    child.unref()
    this.idle(true)
  }

  /** Under the fifo watch: a ref or object file that is a fifo fails it as `git-fifo`. */
  ask(spec: string, maxBytes: number): Promise<GitObject | undefined> {
    return watchedForFifos(() => this.answer(spec, maxBytes))
  }

  private async answer(spec: string, maxBytes: number): Promise<GitObject | undefined> {
    if (this.ended) throw this.ended
    this.idle(false)
    try {
      this.child.stdin.write(`${spec}\n`)
      const header = (await this.line()).toString('utf8')
      if (header === `${spec} missing` || header === `${spec} ambiguous`) return undefined
      const match = HEADER.exec(header)
      if (!match) throw new Error(`git cat-file --batch answered ${JSON.stringify(header)}`)
      const size = Number(match[3])
      const content =
        size <= maxBytes ? await this.take(size) : (await this.skip(size), Buffer.alloc(0))
      if ((await this.take(1))[0] !== 0x0a) throw new Error('git cat-file --batch lost step')
      return { sha: match[1]!, type: match[2] as ObjectType, size, content }
    } finally {
      this.idle(true)
    }
  }

  /** Its input closed, git ends by itself; killed if it has not a moment later. */
  end(): void {
    this.ended ??= new Error('git cat-file --batch was closed')
    this.child.stdin.end()
    const child = this.child
    setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }, 1000).unref()
  }

  private idle(idle: boolean): void {
    for (const stream of [this.child.stdout, this.child.stdin] as unknown as Handle[])
      if (idle) stream.unref?.()
      else stream.ref?.()
  }

  private async line(): Promise<Buffer> {
    for (;;) {
      const joined = this.joined()
      const eol = joined.indexOf(0x0a)
      if (eol >= 0) {
        this.consume(eol + 1)
        return joined.subarray(0, eol)
      }
      await this.more()
    }
  }

  private async take(size: number): Promise<Buffer> {
    while (this.buffered < size) await this.more()
    const bytes = Buffer.from(this.joined().subarray(0, size))
    this.consume(size)
    return bytes
  }

  private async skip(size: number): Promise<void> {
    let left = size
    for (;;) {
      const dropped = Math.min(left, this.buffered)
      this.consume(dropped)
      left -= dropped
      if (left === 0) return
      await this.more()
    }
  }

  private joined(): Buffer {
    if (this.chunks.length > 1)
      this.chunks.splice(0, this.chunks.length, Buffer.concat(this.chunks))
    return this.chunks[0] ?? Buffer.alloc(0)
  }

  private consume(size: number): void {
    const rest = this.joined().subarray(size)
    this.chunks.splice(0, this.chunks.length, ...(rest.length > 0 ? [rest] : []))
    this.buffered = rest.length
  }

  private more(): Promise<void> {
    if (this.ended) return Promise.reject(this.ended)
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined
        resolve()
      }
    })
  }
}

interface Handle {
  ref?: () => void
  unref?: () => void
}
