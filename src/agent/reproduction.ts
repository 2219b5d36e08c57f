import { InvalidDiffError, type FileChange } from '../contract/index.js'
import {
  assertStillParses,
  editFromRead,
  formatNamed,
  readReply,
  type FileEdit
} from '../edits/index.js'
import {
  draftMessages,
  noReproductionReason,
  reproductionMessages,
  type ChatMessage
} from '../model/index.js'
import { guardReplyClaims, onlyDocumentation } from '../policy/index.js'
import {
  FRAMEWORK_NAMES,
  issueContext,
  isTestFile,
  judgeReproduction,
  namedTests,
  packageScripts,
  reportOf,
  reproductionLocation,
  testFramework,
  type BaseCheck,
  type CommandRun,
  type TestFramework
} from '../validation/index.js'
import type { AttemptSettings } from './attempt-settings.js'
import { runOnBase } from './base-runs.js'

/** What the run has to prove the fix with, decided before the first draft. */
export type Reproduction =
  | {
      kind: 'reproduced'
      /** The new test file as written (a CREATE edit). */
      edit: FileEdit
      /** The command that runs it: a validation command, with the test's path added if it names files. */
      command: string
      /** The validation command it stands for (the same, unless the test's path was added). */
      replaces: string
      /** Its tests that failed on the base by an assertion. */
      tests: string[]
      /** What the command printed on the base with the test: the draft is shown it. */
      failure: string
      committed: boolean
    }
  /** The issue names tests that already fail on the base: they are the proof. */
  | { kind: 'named'; tests: string[] }
  | { kind: 'none'; reason: string }

// Issues a triage or plan marks as these report no behaviour to reproduce.
const NOT_BEHAVIOUR =
  /^(docs?|documentation|config(uration)?|chore|maintenance|feat(ure)?|enhancement|refactor|style|ci|build)$/i
const CODE_CHARS = 16_000

/**
 * Before the first draft: the base outcome of each test command (run once, while the model
 * writes the reproduction), and a new test that fails there by an assertion, asked again with
 * the output while it is none. The base runs seed `baseChecks`, so validation never runs the
 * base again; with a reproduction they are the base with the test in place.
 */
export async function reproduce(
  settings: AttemptSettings,
  baseChecks: Map<string, BaseCheck>
): Promise<Reproduction> {
  const options = settings.reproduction
  if (!options || options.mode === 'off') return { kind: 'none', reason: 'reproduction is off' }
  const git = settings.branch.git
  const baseCommit = settings.branch.baseCommit
  const show = (path: string) =>
    git
      .exec(['cat-file', 'blob', `${baseCommit}:${path}`], { allowFailure: true })
      .then((out) => (out.exitCode === 0 ? out.stdout : null))
  const scripts = packageScripts(await show('package.json'))
  const testSteps = settings.steps.flatMap((step) => {
    const framework =
      step.step === 'test' || step.step === 'command'
        ? testFramework(step.command, scripts)
        : undefined
    return framework ? [{ step, framework }] : []
  })
  if (testSteps.length === 0)
    return {
      kind: 'none',
      reason: 'no validation command runs a test framework Patchsmith can write a reproduction in'
    }
  const { framework, step } = testSteps[0]!
  const steps = testSteps.map((t) => t.step)
  const untestable = untestableReason(settings)
  const planned = settings.input.fix_plan.file_changes.map((change) => change.path)
  const tracked = (await git.exec(['ls-tree', '-r', '-z', '--name-only', baseCommit])).stdout
    .split('\0')
    .filter(Boolean)
  const location = reproductionLocation(
    framework,
    tracked,
    planned,
    settings.input.issue.number,
    step.command
  )
  // The command that runs the new test: the same unless it names files only (then with the path).
  const testCommand = location.command ?? step.command
  const stepsWithTest = steps.map((s) => (s === step ? { ...s, command: testCommand } : s))
  const validationOf = (command: string) => (command === testCommand ? step.command : command)
  const example = location.example ? await show(location.example) : null
  const ask = (previous?: { test: string; problem: string; output: string }) =>
    askForTest(settings, {
      path: location.path,
      framework,
      command: step.command,
      example:
        location.example && example !== null
          ? { path: location.example, content: example }
          : undefined,
      previous
    })
  settings.logger.info(
    untestable
      ? `Running the tests on the base (${untestable})`
      : `Asking for a test that reproduces the issue (${location.path}${testCommand === step.command ? '' : `, run by \`${testCommand}\``}) while the tests run on the base`
  )
  // The base runs and the model's first test at once: neither waits for the other. An issue
  // that names a test waits for the base first: when that test fails there, it is the proof
  // and no test is asked for.
  const baseRuns = runOnBase(settings, steps, [])
  const first = untestable || mentionsTest(settings) ? undefined : ask()
  const plain = await baseRuns
  for (const run of plain) seed(baseChecks, run.command, run.run)
  const named = namedFailures(settings, plain)
  if (named.length > 0) {
    first?.catch(() => {})
    settings.logger.info(`The issue names tests that fail on the base: ${named.join(', ')}`)
    return { kind: 'named', tests: named }
  }
  if (untestable) return { kind: 'none', reason: untestable }
  const before = new Map(plain.map((run) => [run.command, run.run]))
  let reply = await (first ?? ask())
  let problem = ''
  for (let attempt = 1; ; attempt++) {
    const said = noReproductionReason(reply)
    if (said !== undefined) {
      settings.logger.info(`No reproduction: the model found nothing a test can show (${said})`)
      return { kind: 'none', reason: `the model found nothing a test can show: ${said}` }
    }
    let tried: { test: string; output: string } | undefined
    try {
      const edit = await testEdit(settings, reply, location.path)
      const withTest = await runOnBase(settings, stepsWithTest, [edit])
      for (const run of withTest) {
        const judged = judgeReproduction(
          before.get(validationOf(run.command)),
          run.run,
          location.path
        )
        if (judged.ok) {
          for (const other of withTest) seed(baseChecks, other.command, other.run)
          settings.logger.info(
            `Reproduced on the base: ${location.path} fails (${judged.tests.slice(0, 5).join(', ')})`
          )
          return {
            kind: 'reproduced',
            edit,
            command: run.command,
            replaces: validationOf(run.command),
            tests: judged.tests,
            failure: judged.excerpt,
            committed: options.mode === 'commit'
          }
        }
        problem = judged.problem
        tried = { test: edit.after ?? '', output: judged.excerpt }
      }
    } catch (error) {
      if (!(error instanceof InvalidDiffError)) throw error
      // "it …": the summary reads "the last test could not be read …".
      problem = `it could not be read as a new test file: ${error.message}`
      tried = { test: reply.slice(0, 6_000), output: '' }
    }
    settings.logger.warn(`Reproduction ${attempt} of ${options.attempts} refused: ${problem}`)
    if (attempt >= options.attempts) break
    reply = await ask({ test: tried?.test ?? '', problem, output: tried?.output ?? '' })
  }
  return {
    kind: 'none',
    reason: `no reproduction after ${options.attempts} attempt(s): the last test ${problem.replace(/^it /, '')}`
  }
}

/** Why a test cannot show the issue, when the triage or the plan already says so. */
function untestableReason(settings: AttemptSettings): string | undefined {
  return untestableInput(settings.input)
}

/** untestableReason from the input alone (a plan shown for approval says it too). */
export function untestableInput(
  input: Pick<AttemptSettings['input'], 'triage_result' | 'fix_plan'>
): string | undefined {
  const triage = input.triage_result as Record<string, unknown>
  const kind = [triage.classification, triage.issue_type, triage.type].find(
    (value): value is string => typeof value === 'string' && value.trim() !== ''
  )
  if (kind && NOT_BEHAVIOUR.test(kind.trim()))
    return `the triage classifies the issue as ${kind.trim().slice(0, 40)}, not a behaviour to reproduce`
  if (onlyDocumentation(input.fix_plan.file_changes.map((change) => change.path)))
    return 'the plan changes documentation only'
  return undefined
}

/** Failing tests on the base that the issue or plan names (round 3's targets), the most precisely named. */
function namedFailures(
  settings: AttemptSettings,
  runs: ReadonlyArray<{ run: CommandRun }>
): string[] {
  const failing = runs.flatMap(({ run }) =>
    run.exit_code === 0 ? [] : (reportOf(run)?.tests ?? []).filter((t) => t.status === 'failed')
  )
  return [...new Set(namedTests(issueContext(settings.input).text, failing).map((t) => t.id))]
}

// test_add, TestAdd, add_test, calc.test.js, tests/test_x.py::test_y: a name a runner prints.
const TEST_NAME = /\btest_\w+|\bTest[A-Z0-9_]\w*|\w+_test\b|\w\.(test|spec)\.\w+|::\w/

function mentionsTest(settings: AttemptSettings): boolean {
  const { issue } = settings.input
  return TEST_NAME.test(`${issue.title}\n${issue.body}`)
}

function seed(baseChecks: Map<string, BaseCheck>, command: string, run: CommandRun): void {
  baseChecks.set(command, { run, failsOnBase: run.exit_code !== 0, sameFailure: false })
}

async function askForTest(
  settings: AttemptSettings,
  request: {
    path: string
    framework: TestFramework
    command: string
    example?: { path: string; content: string }
    previous?: { test: string; problem: string; output: string }
  }
): Promise<string> {
  const change: FileChange = {
    path: request.path,
    operation: 'CREATE',
    description: `A new test that reproduces issue #${settings.input.issue.number} (see the last message)`
  }
  const request_ = {
    format: settings.format,
    issue: settings.input.issue,
    change,
    planSteps: settings.input.fix_plan.plan_steps,
    content: null
  }
  const draft: ChatMessage[] = settings.prompter
    ? await settings.prompter.messages(request_)
    : draftMessages({ ...request_, style: settings.style })
  const sources = settings.input.fix_plan.file_changes.flatMap((c) => {
    const content = settings.base.get(c.path)
    return typeof content === 'string' && !isTestFile(request.framework, c.path)
      ? [{ path: c.path, content }]
      : []
  })
  const messages = reproductionMessages(draft, {
    ...request,
    framework: FRAMEWORK_NAMES[request.framework],
    sources,
    codeChars: CODE_CHARS
  })
  const label = `reproduction ${request.path}`
  settings.log.requests(0, [{ path: label, messages }])
  const completion = await settings.model.complete(messages, {
    label,
    responseFormat: formatNamed(settings.format).replySchema,
    signal: settings.runner.signal
  })
  settings.log.replies(0, [{ path: label, text: completion.text }])
  return completion.text
}

/** The reply as the new test file: the run's format, its reply guard and the syntax gate. */
async function testEdit(settings: AttemptSettings, reply: string, path: string): Promise<FileEdit> {
  const read = readReply(settings.format, reply, {})
  guardReplyClaims(read.claims, settings.policy, { oneFile: true })
  const change: FileChange = { path, operation: 'CREATE' }
  const drafted = editFromRead(read, change, null, { style: settings.style })
  await assertStillParses([drafted])
  const after = drafted.edit.after
  if (after === null || after.trim() === '')
    throw new InvalidDiffError(`The reproduction for ${path} is empty.`, {
      rule: 'no-change',
      path
    })
  return { path, operation: 'CREATE', before: null, after }
}
