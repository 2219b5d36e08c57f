import { afterEach } from 'vitest'

/** What a test leaves to undo (servers, repositories), undone after each test, newest first. */
export function cleanupAfterEach(): Array<() => unknown> {
  const cleanups: Array<() => unknown> = []
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!()
  })
  return cleanups
}
