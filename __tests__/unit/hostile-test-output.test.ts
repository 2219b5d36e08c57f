import { describe, expect, it } from 'vitest'
import { endsBeforeTimeout } from '../support/timeouts.js'
import { parseTestReport } from '../../src/validation/test-report/index.js'
import { judgeCommand, type CommandRun } from '../../src/validation/verdict/index.js'

// What a validation command prints is written by code the model wrote: it may be built to make
// the per-test reading slow, or to make a failure the draft caused read as a base failure.
const run = (stdout: string, exit_code = 1): CommandRun => ({ exit_code, stdout, stderr: '' })
const READ_CAP = 256 * 1024

describe('hostile validation output', () => {
  it('is read in linear time: long runs of digits, pytest-like ids and a FAIL block per line', () => {
    const outputs = [
      '1'.repeat(100_000) + 'x',
      '=== test session starts ===\n' + 'a::'.repeat(READ_CAP / 3),
      'Ran 1 test in 0.001s\n' + 'FAIL: test_a (t.T)\n'.repeat(READ_CAP / 20)
    ]
    // Minutes on the old code (quadratic); a few hundred ms here. Only a hang is asserted:
    // vitest cannot interrupt synchronous work.
    for (const output of outputs)
      endsBeforeTimeout(() =>
        judgeCommand('test', run(output), run(`${output}\n`), { text: 'issue' })
      )
  })

  it('a test failing twice under one id (subtests) keeps every failure: a new one is no base failure', () => {
    const block = (i: number, message: string) =>
      [
        '======================================================================',
        `FAIL: test_add (test_calc.CalcTest.test_add) (i=${i})`,
        '----------------------------------------------------------------------',
        'Traceback (most recent call last):',
        '  File "/repo/test_calc.py", line 9, in test_add',
        `AssertionError: ${message}`,
        ''
      ].join('\n')
    const tail =
      '\n----------------------------------------------------------------------\nRan 1 test in 0.001s\n\nFAILED (failures=1)\n'
    const base = block(2, '7 != 8') + tail
    // The draft broke i=1 as well; i=2 still fails as on the base.
    const after = block(1, '3 != 4') + block(2, '7 != 8') + tail
    const report = parseTestReport(after)!
    expect(
      report.tests
        .filter((t) => t.status === 'failed')
        .map((t) => t.message)
        .join('\n')
    ).toContain('3 != 4')
    const verdict = judgeCommand('python -m unittest', run(base), run(after), { text: 'unrelated' })
    expect(verdict.failures.map((f) => [f.kind, f.reason])).toEqual([['target', 'changed']])
  })

  it('the same for JUnit XML: two failing test cases of one name', () => {
    const xml = (cases: string[]) =>
      `<testsuite name="s">${cases.map((m) => `<testcase classname="C" name="t"><failure message="${m}"/></testcase>`).join('')}</testsuite>`
    const verdict = judgeCommand(
      'mvn test',
      run(xml(['expected 8 got 7'])),
      run(xml(['expected 4 got 3', 'expected 8 got 7'])),
      { text: 'unrelated' }
    )
    expect(verdict.failures.map((f) => f.kind)).toEqual(['target'])
  })
})
