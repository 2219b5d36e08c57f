/**
 * The suite's one backstop for a hang (vitest.config.ts sets it for every test and hook). It is
 * no measure of speed: a process-heavy test on a loaded 2-core machine takes several times its
 * idle time. Synchronous work cannot be interrupted by vitest's timer, so a test that guards
 * against a runaway loop (a pathological glob, quadratic parsing) checks this bound itself.
 */
export const TEST_TIMEOUT_MS = 120_000

/** Runs `work` and fails if it took longer than the suite's backstop for a hang. */
export function endsBeforeTimeout<T>(work: () => T): T {
  const started = performance.now()
  const result = work()
  const took = performance.now() - started
  if (took > TEST_TIMEOUT_MS) throw new Error(`ran ${Math.round(took)} ms: past the test timeout`)
  return result
}
