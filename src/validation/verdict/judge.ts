import { failureFingerprint } from '../failure-text.js'
import {
  normaliseOutput,
  parseTestReport,
  type TestCase,
  type TestReport
} from '../test-report/index.js'
import { namedBy } from './tied.js'
import type {
  CommandRun,
  CommandVerdict,
  Failure,
  FailureReason,
  IssueContext,
  Outcome
} from './types.js'

const MESSAGE_LIMIT = 300

/**
 * How one validation command's failures after a draft relate to the base and to the issue:
 * per test where both outputs are a runner's report, else the whole output, normalised.
 * `base` is undefined when the command was not run on the base (every failure is then a target).
 */
export function judgeCommand(
  command: string,
  base: CommandRun | undefined,
  after: CommandRun,
  context: IssueContext
): CommandVerdict {
  const verdict: CommandVerdict = {
    command,
    base: outcomeOf(base),
    after: outcomeOf(after),
    fixed: [],
    broken: [],
    failures: []
  }
  const afterReport = reportOf(after)
  const baseReport = base ? reportOf(base) : undefined
  const comparable = afterReport && (!base || baseReport?.runner === afterReport.runner)
  if (comparable) {
    verdict.runner = afterReport.runner
    const baseFailing = failingById(baseReport)
    const afterFailing = failingById(afterReport)
    verdict.fixed = [...baseFailing.keys()].filter((id) => !afterFailing.has(id))
    verdict.broken = [...afterFailing.keys()].filter((id) => base && !baseFailing.has(id))
    for (const test of afterFailing.values()) {
      verdict.failures.push(
        classify(test, base ? (baseFailing.get(test.id) ?? null) : undefined, context)
      )
    }
  }
  if (!comparable && base) {
    // No tests to name: the command itself is what flipped.
    if (verdict.base === 'failed' && verdict.after === 'passed') verdict.fixed = [command]
    if (verdict.base === 'passed' && verdict.after === 'failed') verdict.broken = [command]
  }
  // A failing command whose report names no failing test (a crash, a compile error, a
  // failing step after the tests) is judged as a whole.
  if (after.exit_code !== 0 && verdict.failures.length === 0) {
    verdict.failures.push(wholeCommand(command, base, after, context))
  }
  return verdict
}

function classify(
  test: TestCase,
  onBase: TestCase | null | undefined,
  context: IssueContext
): Failure {
  const reason: FailureReason =
    onBase === undefined
      ? 'base-unknown'
      : onBase === null
        ? 'new'
        : (onBase.message ?? '') !== (test.message ?? '')
          ? 'changed'
          : namedBy(context.text, test)
            ? 'named'
            : 'same-on-base'
  return failure(test.id, reason, test.message)
}

function wholeCommand(
  command: string,
  base: CommandRun | undefined,
  after: CommandRun,
  context: IssueContext
): Failure {
  const text = normaliseOutput(`${after.stderr}\n${after.stdout}`)
  const reason: FailureReason = !base
    ? 'base-unknown'
    : base.exit_code === 0
      ? 'new'
      : !sameOutput(base, after)
        ? 'changed'
        : namedBy(context.text, { id: '', message: text })
          ? 'named'
          : 'same-on-base'
  return failure(command, reason, text.split('\n').slice(-3).join('\n'))
}

function failure(id: string, reason: FailureReason, message: string | undefined): Failure {
  return {
    id,
    kind: reason === 'same-on-base' ? 'unrelated' : 'target',
    reason,
    ...(message ? { message: message.slice(0, MESSAGE_LIMIT) } : {})
  }
}

/** The same failure: the same error lines (positions and numbers of lines aside) or the same normalised output. */
function sameOutput(a: CommandRun, b: CommandRun): boolean {
  return (
    failureFingerprint(a.exit_code, a.stdout, a.stderr) ===
      failureFingerprint(b.exit_code, b.stdout, b.stderr) ||
    normaliseOutput(`${a.stderr}\n${a.stdout}`) === normaliseOutput(`${b.stderr}\n${b.stdout}`)
  )
}

/** The tests a command's run names: its printed report, with the JUnit XML files it wrote. */
export function reportOf(run: CommandRun): TestReport | undefined {
  // unittest writes to stderr, most runners to stdout: both, as the terminal shows them.
  const printed = parseTestReport(`${run.stdout}\n${run.stderr}`)
  if (!run.files) return printed
  // The files are the fuller record (a pytest run's own lines name tests another way): they
  // stand, with JUnit XML the command printed besides them.
  if (printed?.runner !== 'junit') return run.files
  const ids = new Set(run.files.tests.map((t) => t.id))
  return {
    runner: 'junit',
    tests: [...run.files.tests, ...printed.tests.filter((t) => !ids.has(t.id))]
  }
}

/**
 * The failing tests by id. One id failing several times (subtests, parametrised or same-named
 * cases) is one entry holding every message, sorted: a failure the draft added under an id
 * that also fails on the base then reads as changed, not as the base's failure.
 */
function failingById(report: TestReport | undefined): Map<string, TestCase> {
  const messages = new Map<string, string[]>()
  const byId = new Map<string, TestCase>()
  for (const test of report?.tests ?? []) {
    if (test.status !== 'failed') continue
    messages.set(test.id, [...(messages.get(test.id) ?? []), test.message ?? ''])
    byId.set(test.id, byId.get(test.id) ?? test)
  }
  for (const [id, test] of byId) {
    const all = messages.get(id)!
    if (all.length > 1) byId.set(id, { ...test, message: [...all].sort().join('\n') })
  }
  return byId
}

function outcomeOf(run: CommandRun | undefined): Outcome {
  return !run ? 'not-run' : run.exit_code === 0 ? 'passed' : 'failed'
}
