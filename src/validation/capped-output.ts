/** Keeps the head and the tail of a stream within a byte cap, counting what was dropped. */
export class CappedOutput {
  private head = ''
  private tail = ''
  private dropped = 0

  constructor(private readonly cap: number) {}

  push(chunk: string): void {
    const half = Math.floor(this.cap / 2)
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length)
      this.head += take
      chunk = chunk.slice(take.length)
    }
    this.tail += chunk
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half
      this.tail = this.tail.slice(this.tail.length - half)
    }
  }

  text(): string {
    return this.dropped > 0
      ? `${this.head}${marker(this.dropped)}${this.tail}`
      : this.head + this.tail
  }
}

export function marker(dropped: number): string {
  return `\n… [${dropped} characters truncated] …\n`
}

/** Head and tail of a text within `limit` characters, with a visible marker where it was cut. */
export function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text
  const keep = Math.max(0, limit - marker(text.length).length)
  const head = Math.ceil(keep / 2)
  const tail = keep - head
  return text.slice(0, head) + marker(text.length - keep) + (tail > 0 ? text.slice(-tail) : '')
}
