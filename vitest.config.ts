import { defineConfig } from 'vitest/config'
import { TEST_TIMEOUT_MS } from './__tests__/support/timeouts.js'

export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    // A backstop for a hang, not a measure of speed (support/timeouts.ts); no test sets a shorter one.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    // Most of a test's time is spent waiting on git, the sandbox and loopback servers, not on a
    // core: three files at a time on a 2-core machine (vitest's default there is one); measured
    // idle, 286 s of vitest with two, 261 s with three.
    maxWorkers: 3,
    reporters: ['default', './__tests__/plain-summary-reporter.ts']
  }
})
