import { BLOCK_LINES, normaliseOutput } from './normalise.js'
import type { TestCase, TestReport } from './types.js'

// TAP's grammar is a handful of line shapes; the npm TAP parsers (tap-parser) are stream
// based and pull in a dependency tree for what a few regular expressions read here.

const TEST_LINE = /^(\s*)(not ok|ok)\b\s*(\d+)?\s*(?:- )?([^#]*?)\s*(?:#\s*(SKIP|TODO)\b.*)?$/i

/** TAP 13/14 (node --test, mocha --reporter tap, tape): ok / not ok lines and their YAML blocks. */
export function parseTap(output: string): TestReport | undefined {
  if (!/^[ \t]*(TAP version \d+|1\.\.\d+)[ \t]*$/m.test(output)) return undefined
  const tests: TestCase[] = []
  const lines = output.split('\n')
  lines.forEach((line, i) => {
    const hit = TEST_LINE.exec(line)
    if (!hit) return
    const directive = hit[5]?.toUpperCase()
    const failed = hit[2]!.toLowerCase() === 'not ok' && directive !== 'TODO'
    const test: TestCase = {
      id: hit[4]!.trim() || `#${hit[3] ?? tests.length + 1}`,
      status: directive === 'SKIP' ? 'skipped' : failed ? 'failed' : 'passed'
    }
    if (failed) test.message = diagnostics(lines, i, hit[1]!.length)
    tests.push(test)
  })
  return tests.length > 0 ? { runner: 'tap', tests } : undefined
}

/** The lines under a failing test, more indented than it, without its stack and location. */
function diagnostics(lines: string[], index: number, indent: number): string {
  const body: string[] = []
  // Under a dropped key (stack: |-), every line indented deeper than the key is dropped too.
  let droppedLead = -1
  const end = Math.min(lines.length, index + 1 + BLOCK_LINES)
  for (let k = index + 1; k < end; k++) {
    const line = lines[k]!
    const lead = /^\s*/.exec(line)![0].length
    if (line.trim() && lead <= indent) break
    if (droppedLead >= 0 && (lead > droppedLead || !line.trim())) continue
    droppedLead = -1
    if (/^\s*(stack|location|duration_ms|failureType|at):/.test(line)) {
      droppedLead = lead
      continue
    }
    if (/^\s+at /.test(line) || /^\s*(---|\.\.\.)\s*$/.test(line)) continue
    body.push(line)
  }
  return normaliseOutput(body.join('\n'))
}
