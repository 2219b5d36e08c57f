import { BLOCK_LINES, normaliseOutput } from './normalise.js'
import type { TestCase, TestReport } from './types.js'

// No maintained npm package reads unittest's or pytest's console output (only their JUnit XML,
// see junit.ts), so these two read the lines both runners have printed for years.

const UNITTEST_VERBOSE =
  /^(\w+) \(([\w.]+)\) \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)$/
const UNITTEST_BLOCK = /^(FAIL|ERROR): (\w+) \(([\w.]+)\)/
const UNITTEST_RAN = /^Ran \d+ tests? in /m

/** `python -m unittest` (verbose or not): per test in -v, failures and errors always. */
export function parseUnittest(output: string): TestReport | undefined {
  if (!UNITTEST_RAN.test(output)) return undefined
  const tests = new Map<string, TestCase>()
  const lines = output.split('\n')
  for (const line of lines) {
    const verbose = UNITTEST_VERBOSE.exec(line)
    if (!verbose) continue
    const id = qualified(verbose[2]!, verbose[1]!)
    const word = verbose[3]!
    tests.set(id, {
      id,
      status:
        word === 'ok'
          ? 'passed'
          : word.startsWith('skipped')
            ? 'skipped'
            : word === 'expected failure'
              ? 'passed'
              : 'failed'
    })
  }
  const blocks = new Set<string>()
  lines.forEach((line, i) => {
    const block = UNITTEST_BLOCK.exec(line)
    if (!block) return
    const id = qualified(block[3]!, block[2]!)
    const body: string[] = []
    // Up to the next separator or block, and a bounded number of lines: a block per line of
    // output must not make this quadratic.
    const end = Math.min(lines.length, i + 2 + BLOCK_LINES)
    for (let k = i + 2; k < end && !/^(=+|-+)$/.test(lines[k]!); k++) {
      if (UNITTEST_BLOCK.test(lines[k]!)) break
      body.push(lines[k]!)
    }
    // The traceback's last lines hold the assertion; its frames move with every edit.
    const message = normaliseOutput(body.filter((l) => !/^\s*File "|^Traceback/.test(l)).join('\n'))
    // Subtests fail under their test's id, one block each: every block's message is kept.
    const earlier = blocks.has(id) ? tests.get(id)?.message : undefined
    blocks.add(id)
    tests.set(id, {
      id,
      status: 'failed',
      message: earlier === undefined ? message : `${earlier}\n${message}`
    })
  })
  return tests.size > 0 ? { runner: 'unittest', tests: [...tests.values()] } : undefined
}

/** Python 3.11+ prints "test_add (test_calc.CalcTest.test_add)"; older ones "test_add (test_calc.CalcTest)". */
function qualified(where: string, name: string): string {
  return where.endsWith(`.${name}`) ? where : `${where}.${name}`
}

const PYTEST_SESSION = /^=+ test session starts =+$/m
// `pytest -q` prints no session header: its section rules and closing count tell it.
const PYTEST_QUIET =
  /^=+ (FAILURES|ERRORS|short test summary info) =+$|^(\d+ (failed|passed|errors?|skipped|xfailed|xpassed|warnings?)(, )?)+ in [\d.]+s$/m
// The id is one \S+ run checked afterwards: `\S+::\S+` backtracks quadratically on a long run.
const PYTEST_VERBOSE = /^(\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/
const PYTEST_SUMMARY = /^(FAILED|ERROR) (\S+)(?: - (.*))?$/
const PYTEST_ID = (id: string) => /.::./.test(id)

/** pytest: every test with -v, the failures from the short summary always. */
export function parsePytest(output: string): TestReport | undefined {
  if (!PYTEST_SESSION.test(output) && !PYTEST_QUIET.test(output)) return undefined
  const tests = new Map<string, TestCase>()
  for (const line of output.split('\n')) {
    const verbose = PYTEST_VERBOSE.exec(line)
    if (verbose && PYTEST_ID(verbose[1]!)) {
      const word = verbose[2]!
      const status =
        word === 'PASSED' || word === 'XFAIL' ? 'passed' : word === 'SKIPPED' ? 'skipped' : 'failed'
      tests.set(verbose[1]!, { id: verbose[1]!, file: fileOf(verbose[1]!), status })
      continue
    }
    const summary = PYTEST_SUMMARY.exec(line)
    if (summary && (PYTEST_ID(summary[2]!) || summary[2]!.endsWith('.py'))) {
      const id = summary[2]!
      tests.set(id, {
        id,
        file: fileOf(id),
        status: 'failed',
        message: normaliseOutput(summary[3] ?? summary[1]!)
      })
    }
  }
  return { runner: 'pytest', tests: [...tests.values()] }
}

function fileOf(id: string): string {
  return id.split('::')[0]!
}
