import { defineConfig } from 'vitest/config'
import KnownDurationsSequencer from './__tests__/support/known-durations-sequencer.js'
import { TEST_TIMEOUT_MS } from './__tests__/support/timeouts.js'

/**
 * Files that need a process of their own: they mock a module (vi.mock), or set PATH, HOME,
 * XDG_STATE_HOME, the working directory or other variables that what src looks up once per
 * process (git's and setpriv's paths, the journal key, the identity file) would keep for the
 * next file in the same worker.
 */
const OWN_PROCESS = [
  '__tests__/e2e/result-once.test.ts',
  '__tests__/support-servers.test.ts',
  '__tests__/security/git-seal.test.ts',
  '__tests__/security/journal.test.ts',
  '__tests__/unit/change-branch.test.ts',
  '__tests__/unit/change-branch-existing.test.ts',
  '__tests__/unit/change-branch-hooks.test.ts',
  '__tests__/unit/change-branch-push.test.ts',
  '__tests__/unit/git-committer-ident.test.ts',
  '__tests__/unit/git-identity-folders.test.ts',
  '__tests__/unit/git-program.test.ts',
  '__tests__/unit/git-program-checkout.test.ts',
  '__tests__/unit/jail-temp-folder.test.ts',
  '__tests__/unit/report.test.ts',
  '__tests__/unit/run-journal.test.ts',
  '__tests__/unit/runner-io.test.ts',
  '__tests__/unit/sandbox.test.ts',
  '__tests__/unit/unshare-remount.test.ts',
  '__tests__/unit/validation.test.ts'
]

/**
 * Files that bind host sockets a list does not name where they are (relative, renamed, linked,
 * in a work tree): while one exists, every jail of every run searches the shown trees whole
 * (host-sockets.ts), /usr and the toolchains, about half a second of CPU a jail (one find a
 * tree). They run on their own, after the rest (131 such searches in one suite before, from the
 * other files' runs).
 */
const HOST_SOCKETS = [
  '__tests__/e2e/host-socket-swap.test.ts',
  '__tests__/unit/host-sockets.test.ts',
  '__tests__/unit/jail-start-race.test.ts',
  '__tests__/unit/sandbox-attacks.test.ts',
  '__tests__/unit/sandbox-boundaries.test.ts'
]

export default defineConfig({
  test: {
    // A backstop for a hang, not a measure of speed (support/timeouts.ts); no test sets a shorter one.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    // The longest files first, also in a clean clone without vitest's cache.
    sequence: { sequencer: KnownDurationsSequencer },
    globalSetup: ['./__tests__/support/scratch-disk.ts'],
    // Most of a test's time is spent waiting on git, the sandbox and loopback servers, not on a
    // core: three files at a time on a 2-core machine (vitest's default there is one); measured
    // idle, 286 s of vitest with two, 261 s with three.
    maxWorkers: 3,
    reporters: ['default', './__tests__/plain-summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['__tests__/**/*.test.ts'],
          exclude: [...OWN_PROCESS, ...HOST_SOCKETS],
          // A worker runs file after file with the modules it has loaded: starting Node, vitest
          // and the src graph for each of 150 files cost about 0.5 s of CPU a file (measured: the
          // suite 419 -> 352 CPU-s).
          // Every file still gets its own repositories, servers and runs.
          isolate: false
        }
      },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
      {
        extends: true,
        test: {
          name: 'host-sockets',
          include: HOST_SOCKETS,
          isolate: false,
          sequence: { groupOrder: 1 }
        }
      }
    ]
  }
})
