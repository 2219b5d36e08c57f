import { parseCargo } from './cargo.js'
import { parseGoJson, parseGoTest } from './go.js'
import { parseJest, parseMocha, parseVitest } from './javascript.js'
import { parseJUnitXml } from './junit.js'
import { parsePytest, parseUnittest } from './python.js'
import { parseTap } from './tap.js'
import type { TestReport } from './types.js'

// Most specific first: go -json's events and JUnit XML cannot be mistaken for anything else;
// TAP last, as other runners' output may contain an "ok" line.
const WHOLE = [parseGoJson, parseJUnitXml]
const BY_LINE = [
  parseCargo,
  parseGoTest,
  parsePytest,
  parseUnittest,
  parseVitest,
  parseJest,
  parseMocha,
  parseTap
]

/**
 * A line the line-reading parsers see at most: no runner prints a test's name or result line
 * longer, and their patterns, bounded per line, cannot take quadratic time on hostile output.
 */
const LINE_CHARS = 512

/** The tests in a command's output, per runner; undefined when no runner's format is recognised. */
export function parseTestReport(output: string): TestReport | undefined {
  for (const parse of WHOLE) {
    const report = parse(output)
    if (report) return report
  }
  const cut = output
    .split('\n')
    .map((line) => (line.length > LINE_CHARS ? line.slice(0, LINE_CHARS) : line))
    .join('\n')
  for (const parse of BY_LINE) {
    const report = parse(cut)
    if (report) return report
  }
  return undefined
}
