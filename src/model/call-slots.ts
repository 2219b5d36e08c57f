/**
 * At most `limit` model calls in flight across the whole run, whoever makes them: the drafts of
 * one plan, the drafts of `[P]` tasks drafted together, a commit message. `concurrency` is what
 * users set to stay under an endpoint's rate limit, so no caller may add its own on top.
 */
export class CallSlots {
  private active = 0
  private readonly waiting: Array<() => void> = []

  constructor(readonly limit: number) {}

  /** Waits for a free slot; returns its release. Rejects when `signal` is or gets aborted first. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw signal.reason
    if (this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = this.waiting.indexOf(wake)
          if (at >= 0) this.waiting.splice(at, 1)
          reject(signal!.reason)
        }
        const wake = () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        this.waiting.push(wake)
      })
    } else {
      this.active++
    }
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      // The slot passes straight to the next caller, so `active` only drops when none waits.
      if (next) next()
      else this.active--
    }
  }
}
