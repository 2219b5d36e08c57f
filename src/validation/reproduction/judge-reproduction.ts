import { errorExcerpt } from '../failure-text.js'
import type { TestCase } from '../test-report/index.js'
import { reportOf, type CommandRun } from '../verdict/index.js'

/** What the base run with the new test in place showed: a reproduction, or why it is none. */
type ReproductionJudgement =
  { ok: true; tests: string[]; excerpt: string } | { ok: false; problem: string; excerpt: string }

const EXCERPT = 3_000

// An error before any assertion: the test does not run against the behaviour at all (an
// import, a syntax or collection error, a name the code does not have).
const ERROR_KIND = new RegExp(
  [
    String.raw`\b(ImportError|ModuleNotFoundError|SyntaxError|IndentationError|TabError|NameError)\b`,
    String.raw`\bmodule '[^']+' has no attribute\b`,
    String.raw`unittest\.loader\._FailedTest`,
    String.raw`\bERROR collecting\b|\bcollection error\b|errors? during collection`,
    String.raw`\bERR_MODULE_NOT_FOUND\b|Cannot find module|Cannot find package|Failed to load url`,
    String.raw`\bReferenceError\b|\bis not defined\b|\bis not a function\b|\bis not a constructor\b`,
    String.raw`does not provide an export named|\bis not exported\b`,
    String.raw`\bundefined: \w|\bcannot find package\b|\bno required module\b|\bbuild failed\b|\[build failed\]|\bsetup failed\b`,
    String.raw`\berror\[E\d{4}\]|\bcould not compile\b`,
    String.raw`\bcannot find symbol\b|COMPILATION ERROR|\bUnresolved reference\b|\bNoClassDefFoundError\b|\bClassNotFoundException\b`
  ].join('|')
)

// A failed expectation: the test ran and the code gave another value than the expected one.
const ASSERTION_KIND = new RegExp(
  [
    String.raw`\bAssertionError\b|\bERR_ASSERTION\b|\bAssertionFailedError\b|\bComparisonFailure\b`,
    String.raw`\bassert(ion)? failed\b|\bassert(Equal|True|False|Is|In|Raises|Not)\w*\b|^\s*>?\s*assert\b|\bassert\b.*(==|!=|<|>|\bin\b|\bis\b)`,
    String.raw`\bexpect(ed)?\b|\bto(Be|Equal|StrictEqual|Throw|Match|Contain)\w*\b`,
    String.raw`\bgot\b[\s\S]{0,200}\bwant\b|, want\b|\bwant\b[\s\S]{0,200}\bgot\b|\bleft\b[\s\S]{0,200}\bright\b`,
    String.raw`\bpanicked at\b[\s\S]{0,300}\bassert`,
    String.raw`\s!=\s|\bnot equal\b|\bdiffer`
  ].join('|'),
  'im'
)

function failureKind(text: string): 'error' | 'assertion' | 'unknown' {
  if (ERROR_KIND.test(text)) return 'error'
  return ASSERTION_KIND.test(text) ? 'assertion' : 'unknown'
}

/**
 * A reproduction counts only when, on the base, it fails by an assertion of the new test and
 * breaks nothing: `before` is the base's run without the test (undefined when not known),
 * `withTest` the same command with the new test file in place.
 */
export function judgeReproduction(
  before: CommandRun | undefined,
  withTest: CommandRun,
  testPath: string
): ReproductionJudgement {
  const output = `${withTest.stdout}\n${withTest.stderr}`
  const excerpt = errorExcerpt(withTest.stdout, withTest.stderr, EXCERPT)
  const no = (problem: string): ReproductionJudgement => ({ ok: false, problem, excerpt })
  if (withTest.exit_code === 0)
    return no('it passes on the base: the test does not show the behaviour the issue reports')
  const report = reportOf(withTest)
  const baseReport = before ? reportOf(before) : undefined
  if (!report || report.tests.length === 0) {
    // No runner's report: a whole-output judgement, only when the base passed without the test.
    const kind = failureKind(output)
    if (kind === 'error')
      return no(`it fails by an error before any assertion: ${errorLine(output)}`)
    if (before?.exit_code === 0 && kind === 'assertion' && mentions(output, testPath))
      return { ok: true, tests: [testPath], excerpt }
    return no('it fails, but the output names no failing assertion of the new test')
  }
  const baseIds = new Set((baseReport?.tests ?? []).map((t) => t.id))
  const baseFailing = new Set(
    (baseReport?.tests ?? []).filter((t) => t.status === 'failed').map((t) => t.id)
  )
  // Quiet runners list only failures: an id missing from such a base says nothing.
  const listsAll = (baseReport?.tests ?? []).some((t) => t.status === 'passed')
  const ours = (test: TestCase) => belongsTo(test, testPath) || (listsAll && !baseIds.has(test.id))
  const failing = report.tests.filter((t) => t.status === 'failed')
  const broken = failing.filter((t) => !ours(t) && !baseFailing.has(t.id))
  if (broken.length > 0 && (listsAll || before?.exit_code === 0))
    return no(`it breaks tests that pass on the base: ${ids(broken)}`)
  const reproducing = failing.filter(ours)
  if (reproducing.length === 0) {
    const kind = failureKind(output)
    return no(
      kind === 'error'
        ? `it fails by an error before any test ran: ${errorLine(output)}`
        : 'its tests pass on the base: the test does not show the behaviour the issue reports'
    )
  }
  // A test's own message first; the whole output where it says nothing of its kind (a file
  // that failed to load is reported by TAP as "test failed", the reason in comments).
  const kindOf = (t: TestCase) => {
    const own = failureKind(t.message ?? '')
    return own === 'unknown' ? failureKind(output) : own
  }
  const errors = reproducing.filter((t) => kindOf(t) === 'error')
  if (errors.length > 0)
    return no(
      `it fails by an error, not an assertion (${ids(errors)}): ${errorLine(`${errors[0]!.message ?? ''}\n${output}`)}`
    )
  const asserted = reproducing.filter((t) => kindOf(t) === 'assertion')
  if (asserted.length === 0)
    return no(`its failure is no assertion or expected value (${ids(reproducing)})`)
  return { ok: true, tests: asserted.map((t) => t.id), excerpt }
}

/** A test of the new file: its id or file names the file (runners that print no file fall back to ids new since the base). */
function belongsTo(test: TestCase, testPath: string): boolean {
  const stem = testPath
    .split('/')
    .pop()!
    .replace(/\.[\w]+$/, '')
  const where = `${test.file ?? ''} ${test.id}`
  return (
    where.includes(testPath) || new RegExp(String.raw`(^|[\s/.:\\])${escape(stem)}\b`).test(where)
  )
}

function mentions(output: string, testPath: string): boolean {
  const name = testPath.split('/').pop()!
  return output.includes(name) || output.includes(name.replace(/\.[\w]+$/, ''))
}

function errorLine(text: string): string {
  const lines = text.split('\n').filter((l) => ERROR_KIND.test(l))
  // The exception's own line ("ImportError: cannot import name …") says most; a frame or a
  // summary line ("1 error during collection") less.
  const named = lines.filter((l) => /(Error|Exception)(\s*\[[A-Z_]+\])?:\s|error\[E\d+\]/.test(l))
  const line = named[named.length - 1] ?? lines[0] ?? text.trim().split('\n')[0] ?? ''
  return line.trim().slice(0, 200)
}

function ids(tests: readonly TestCase[]): string {
  return tests
    .slice(0, 5)
    .map((t) => t.id)
    .join(', ')
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
