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

function marker(dropped: number): string {
  return `\n… [${dropped} characters truncated] …\n`
}

const MARKER = /\n… \[(\d+) characters truncated\] …\n/

/** Head and tail of a text within `limit` characters, with a visible marker where it was cut. */
export function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text
  // Room for the longest marker, so the result stays within the limit whatever the count.
  const keep = Math.max(0, limit - marker(Number.MAX_SAFE_INTEGER).length)
  const head = Math.ceil(keep / 2)
  const tail = keep - head
  const cut = text.slice(head, text.length - tail)
  // A marker in the cut part (left by the read cap) stands for more text than its own length.
  const inner = MARKER.exec(cut)
  const dropped = cut.length + (inner ? Number(inner[1]) - inner[0].length : 0)
  return text.slice(0, head) + marker(dropped) + text.slice(text.length - tail)
}
