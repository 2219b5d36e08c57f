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
const PYTEST_WORDS = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/
const PYTEST_ID = (id: string) => /.::./.test(id)

/** pytest: every test with -v, the failures from the short summary always. */
export function parsePytest(output: string): TestReport | undefined {
  if (!PYTEST_SESSION.test(output) && !PYTEST_QUIET.test(output)) return undefined
  const tests = new Map<string, TestCase>()
  for (const line of output.split('\n')) {
    // -v: "tests/test_x.py::test_y[a b] PASSED   [ 50%]"
    const verbose = nodeId(line)
    const word = verbose && PYTEST_WORDS.exec(line.slice(verbose.length + 1))?.[1]
    if (verbose && word && PYTEST_ID(verbose)) {
      const status =
        word === 'PASSED' || word === 'XFAIL' ? 'passed' : word === 'SKIPPED' ? 'skipped' : 'failed'
      tests.set(verbose, { id: verbose, file: fileOf(verbose), status })
      continue
    }
    // The short summary: "FAILED tests/test_x.py::test_y[a b] - AssertionError: …"
    const summary = /^(FAILED|ERROR) /.exec(line)
    const id = summary && nodeId(line.slice(summary[0].length))
    if (!summary || !id || !(PYTEST_ID(id) || id.endsWith('.py'))) continue
    const rest = line.slice(summary[0].length + id.length)
    if (rest !== '' && !rest.startsWith(' - ')) continue
    tests.set(id, {
      id,
      file: fileOf(id),
      status: 'failed',
      message: normaliseOutput(rest.slice(3) || summary[1]!)
    })
  }
  return { runner: 'pytest', tests: [...tests.values()] }
}

/**
 * The node id a line starts with: up to the first space, or, for a parametrized test whose ids
 * hold spaces (`test_y[length includes suffix]`), up to the bracket that closes them and is
 * followed by a space or the end. Found by index, never by a backtracking pattern.
 */
function nodeId(line: string): string | undefined {
  const space = line.indexOf(' ')
  const first = space < 0 ? line : line.slice(0, space)
  if (first === '') return undefined
  const open = first.indexOf('[')
  if (open < 0 || first.endsWith(']')) return first
  for (let close = line.indexOf(']', open); close >= 0; close = line.indexOf(']', close + 1)) {
    const next = line[close + 1]
    if (next === undefined || next === ' ') return line.slice(0, close + 1)
  }
  return first
}

function fileOf(id: string): string {
  return id.split('::')[0]!
}
