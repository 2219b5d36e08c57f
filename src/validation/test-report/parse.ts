import { parseCargo } from './cargo.js'
import { parseGoJson, parseGoTest } from './go.js'
import { parseJest, parseMocha, parseVitest } from './javascript.js'
import { parseJUnitXml } from './junit.js'
import { parsePytest, parseUnittest } from './python.js'
import { parseTap } from './tap.js'
import type { TestReport } from './types.js'

// Most specific first: go -json's events and JUnit XML cannot be mistaken for anything else;
// TAP last, as other runners' output may contain an "ok" line.
const PARSERS = [
  parseGoJson,
  parseJUnitXml,
  parseCargo,
  parseGoTest,
  parsePytest,
  parseUnittest,
  parseVitest,
  parseJest,
  parseMocha,
  parseTap
]

/** The tests in a command's output, per runner; undefined when no runner's format is recognised. */
export function parseTestReport(output: string): TestReport | undefined {
  for (const parse of PARSERS) {
    const report = parse(output)
    if (report) return report
  }
  return undefined
}
