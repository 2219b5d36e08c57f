import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    // A backstop for a hang, not a measure of speed: on a loaded 2-core machine a test that runs
    // the bundle, git and the sandbox many times may take several times its idle time. Tests
    // do not set shorter ones.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most of a test's time is spent waiting on git, the sandbox and loopback servers, not on a
    // core: three files at a time on a 2-core machine (vitest's default there is one); measured
    // idle, 286 s of vitest with two, 261 s with three.
    maxWorkers: 3,
    reporters: ['default', './__tests__/plain-summary-reporter.ts']
  }
})
