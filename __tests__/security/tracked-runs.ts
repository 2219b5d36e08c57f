import { afterEach } from 'vitest'
import { hostileRun, type HostileOptions, type HostileRun } from './hostile-run.js'

/**
 * hostileRun for a test file: each run's servers are closed and its repository removed after
 * the test that made it. Call once at the top of the file.
 */
export function trackedHostileRuns(): (options: HostileOptions) => Promise<HostileRun> {
  const runs: HostileRun[] = []
  afterEach(async () => {
    while (runs.length > 0) {
      const run = runs.pop()!
      await run.model.close()
      await run.github.close()
      run.repo.cleanup()
    }
  })
  return async (options) => {
    const hostile = await hostileRun(options)
    runs.push(hostile)
    return hostile
  }
}
