import type { Reporter, TestModule } from 'vitest/node'
import { sandboxSkipLine } from './support/sandbox-needs.js'

/**
 * Ends the run with one plain line, `N passed, N failed, N skipped`, that any CI can read, after
 * the one line saying why tests skipped for what this machine lacks (bubblewrap, sudo, pytest),
 * if they did.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 }
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') counts.passed++
        else if (state === 'failed') counts.failed++
        else counts.skipped++
      }
    }
    // Why tests skipped (no bubblewrap, sudo or pytest here), once for the whole run.
    const gaps = counts.skipped > 0 ? sandboxSkipLine() : undefined
    if (gaps) process.stdout.write(`\nSKIP ${gaps}\n`)
    process.stdout.write(
      `\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`
    )
  }
}
