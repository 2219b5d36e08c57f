import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  issueContext,
  judgeCommand,
  proofFields,
  rootCause,
  settle,
  verificationOf,
  type CommandRun
} from '../../src/validation/verdict/index.js'
import { repairNote } from '../../src/model/index.js'

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/test-reports/${name}`, import.meta.url), 'utf8')
const run = (stdout: string, exit_code = 1, stderr = ''): CommandRun => ({
  exit_code,
  stdout,
  stderr
})
const ISSUE = { text: '`test_add` fails: add(2, 3) returns -1, expected 5' }
const ADD = 'test_calc.py::CalcTest::test_add'
const ERROR = 'test_calc.py::CalcTest::test_error'

describe('judgeCommand: per test, against the base and the issue', () => {
  it('a useless draft leaves the named test failing as on the base: a target, the other base failure unrelated', () => {
    const verdict = judgeCommand(
      'pytest',
      run(fixture('pytest.txt')),
      run(fixture('pytest.txt')),
      ISSUE
    )
    expect(verdict).toMatchObject({
      base: 'failed',
      after: 'failed',
      runner: 'pytest',
      fixed: [],
      broken: []
    })
    expect(verdict.failures).toEqual([
      { id: ADD, kind: 'target', reason: 'named', message: 'AssertionError: -1 != 5' },
      {
        id: ERROR,
        kind: 'unrelated',
        reason: 'same-on-base',
        message: 'RuntimeError: boom at <addr>'
      }
    ])
    const settled = settle([verdict])
    expect(settled.targets.map((f) => f.id)).toEqual([ADD])
    expect(repairNote(settled)).toMatch(
      /^The draft did not fix it: still\n- test_calc.py::CalcTest::test_add fails exactly as on the base/
    )
  })

  it('a fix flips the target and leaves only the unrelated base failure', () => {
    const verdict = judgeCommand(
      'pytest',
      run(fixture('pytest.txt')),
      run(fixture('pytest-fixed.txt')),
      ISSUE
    )
    expect(verdict.fixed).toEqual([ADD])
    expect(settle([verdict])).toEqual({
      targets: [],
      unrelated: [
        {
          command: 'pytest',
          id: ERROR,
          kind: 'unrelated',
          reason: 'same-on-base',
          message: 'RuntimeError: boom at <addr>'
        }
      ]
    })
  })

  it('a wrong draft changes the failure: a target even when the issue does not name the test', () => {
    const wrong = fixture('pytest.txt').replaceAll('-1 != 5', '6 != 5')
    const verdict = judgeCommand('pytest', run(fixture('pytest.txt')), run(wrong), {
      text: 'adding is broken'
    })
    expect(verdict.failures.find((f) => f.id === ADD)).toMatchObject({
      kind: 'target',
      reason: 'changed',
      message: 'AssertionError: 6 != 5'
    })
    expect(verdict.failures.find((f) => f.id === ERROR)?.kind).toBe('unrelated')
  })

  it('a draft that breaks a passing test: new, and listed as broken', () => {
    const verdict = judgeCommand(
      'pytest',
      run(fixture('pytest-fixed.txt')),
      run(fixture('pytest.txt')),
      { text: '' }
    )
    expect(verdict.broken).toEqual([ADD])
    expect(verdict.failures.find((f) => f.id === ADD)).toMatchObject({
      kind: 'target',
      reason: 'new'
    })
    expect(repairNote(settle([verdict]))).toContain('passes on the base (the draft broke it)')
  })

  it('names a test by its file, its Jest title or the error text the issue quotes', () => {
    const jest = run(fixture('jest.txt'))
    expect(
      judgeCommand('npx jest', jest, jest, { text: 'jt/calc.test.js is red' }).failures[0]
    ).toMatchObject({ id: 'calc › adds', kind: 'target', reason: 'named' })
    expect(judgeCommand('npx jest', jest, jest, { text: 'the calculator' }).failures[0]?.kind).toBe(
      'unrelated'
    )
    const cargo = run(fixture('cargo.txt'), 101)
    expect(
      judgeCommand('cargo test', cargo, cargo, {
        text: 'cargo test says:\n  left: -1\n right: 5\n'
      }).failures[0]?.kind
    ).toBe('unrelated')
    expect(
      judgeCommand('cargo test', cargo, cargo, {
        text: "panics: thread 'tests::add_works' panicked at src/lib.rs:8:22:\nassertion `left == right` failed"
      }).failures[0]
    ).toMatchObject({ kind: 'target', reason: 'named' })
  })

  it('an output no runner wrote is judged whole: same as the base, changed, new, or base unknown', () => {
    const base = run('src/a.ts(3,1): error TS2304: Cannot find name x.\n', 2)
    const moved = run('src/a.ts(9,4): error TS2304: Cannot find name x.\n', 2)
    const other = run('src/a.ts(3,1): error TS2304: Cannot find name y.\n', 2)
    expect(judgeCommand('tsc', base, moved, ISSUE).failures).toMatchObject([
      { id: 'tsc', kind: 'unrelated', reason: 'same-on-base' }
    ])
    expect(judgeCommand('tsc', base, other, ISSUE).failures).toMatchObject([
      { kind: 'target', reason: 'changed' }
    ])
    expect(judgeCommand('tsc', run('', 0), other, ISSUE).failures).toMatchObject([
      { kind: 'target', reason: 'new' }
    ])
    expect(judgeCommand('tsc', undefined, other, ISSUE)).toMatchObject({
      base: 'not-run',
      failures: [{ reason: 'base-unknown' }]
    })
    expect(
      judgeCommand('tsc', base, moved, { text: 'tsc says "error TS2304: Cannot find name x."' })
        .failures[0]?.reason
    ).toBe('named')
  })

  it('a passing command has no failures, and lists what it fixed', () => {
    const verdict = judgeCommand(
      'go test -json ./...',
      run(fixture('go-json.txt')),
      run(fixture('go-json.txt').replaceAll('"fail"', '"pass"'), 0),
      ISSUE
    )
    expect(verdict).toMatchObject({
      base: 'failed',
      after: 'passed',
      runner: 'go-json',
      fixed: ['TestAdd'],
      failures: []
    })
  })
})

describe('the proof of a change', () => {
  const input = (triage: Record<string, unknown>, steps: unknown[] = []) => ({
    issue: { number: 4, title: 'test_add fails', body: 'add(2, 3) returns -1' },
    triage_result: triage,
    fix_plan: {
      branch_name: 'fix/4',
      plan_steps: steps,
      file_changes: [{ path: 'calc.py', operation: 'MODIFY' as const }],
      validation_commands: ['pytest']
    }
  })

  it('takes the root cause from the triage or from a plan step, and names the flipped tests', () => {
    expect(rootCause(input({ root_cause: ' add subtracts ' }))).toBe('add subtracts')
    expect(rootCause(input({}, ['Root cause: add uses - instead of +', 'Fix it']))).toBe(
      'add uses - instead of +'
    )
    expect(rootCause(input({}, [{ root_cause: 'a sign' }]))).toBe('a sign')
    expect(rootCause(input({}, ['Fix it']))).toBeUndefined()
    const verdicts = [
      judgeCommand(
        'pytest',
        run(fixture('pytest.txt')),
        run(fixture('pytest-fixed.txt')),
        issueContext(input({}))
      ),
      judgeCommand('node check.js', run('error: wrong', 1), run('ok', 0), { text: '' })
    ]
    expect(proofFields(verdicts, input({ root_cause: 'add subtracts' }))).toEqual({
      verification_passed: true,
      verification: {
        status: 'fixed-failing-test',
        reason: `${ADD}, node check.js failed on the base and pass with the change`,
        tests: [
          { id: ADD, base: 'failed', after: 'passed' },
          { id: 'node check.js', base: 'failed', after: 'passed' }
        ]
      },
      root_cause: 'add subtracts',
      proof: [
        {
          command: 'pytest',
          base: 'failed',
          after: 'failed',
          runner: 'pytest',
          fixed: [ADD],
          broken: [],
          unrelated: [ERROR]
        },
        {
          command: 'node check.js',
          base: 'failed',
          after: 'passed',
          fixed: ['node check.js'],
          broken: [],
          unrelated: []
        }
      ]
    })
    const useless = judgeCommand(
      'pytest',
      run(fixture('pytest.txt')),
      run(fixture('pytest.txt')),
      issueContext(input({}))
    )
    expect(proofFields([useless], input({})).verification_passed).toBe(false)
  })
})

describe('verificationOf: verified only when a test went from failing to passing', () => {
  const passing = judgeCommand('npm test', run('ok', 0), run('ok', 0), { text: '' })
  it('passes → passes is unverified, with the reason in plain words', () => {
    expect(verificationOf([passing], undefined)).toEqual({
      status: 'unverified',
      reason:
        'no test failed on the base and passes after the change: the validation commands pass before and after',
      tests: []
    })
    expect(verificationOf([passing], { kind: 'none', reason: 'reproduction is off' }).reason).toBe(
      'reproduction is off'
    )
  })

  it('a reproduction whose command passes after is reproduced-and-fixed, even when a quiet runner names no test', () => {
    const quiet = judgeCommand('python3 -m unittest -q', run('FAILED', 1), run('OK', 0), {
      text: ''
    })
    const proven = {
      kind: 'reproduced' as const,
      path: 'test_issue_7.py',
      command: 'python3 -m unittest -q',
      tests: ['test_issue_7.T.test_add'],
      committed: true,
      content: 'def test_add(): ...'
    }
    const verification = verificationOf([quiet], proven)
    expect(verification).toMatchObject({
      status: 'reproduced-and-fixed',
      tests: [{ id: 'test_issue_7.T.test_add', base: 'failed', after: 'passed' }],
      reproduction: { path: 'test_issue_7.py', committed: true }
    })
    const stillFailing = judgeCommand(
      'python3 -m unittest -q',
      run('FAILED', 1),
      run('FAILED x', 1),
      {
        text: 'test_issue_7'
      }
    )
    expect(verificationOf([stillFailing], proven).status).toBe('unverified')
  })
})
