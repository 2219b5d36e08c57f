import { describe, expect, it } from 'vitest'
import { renderProofTable } from '../../src/report/index.js'

const result = (command: string, exit_code: number) => ({
  command,
  exit_code,
  stdout: '',
  stderr: '',
  duration_ms: 5
})

describe('renderProofTable', () => {
  it('shows base and after per command with the tests that flipped, and the unrelated base failures', () => {
    const markdown = renderProofTable({
      validation_results: [result('python3 -m unittest -v', 1), result('node lint.js', 0)],
      verification_passed: true,
      proof: [
        {
          command: 'python3 -m unittest -v',
          base: 'failed',
          after: 'failed',
          runner: 'unittest',
          fixed: ['test_calc.CalcTest.test_add'],
          broken: [],
          unrelated: ['test_calc.CalcTest.test_legacy']
        },
        {
          command: 'node lint.js',
          base: 'not-run',
          after: 'passed',
          fixed: [],
          broken: [],
          unrelated: []
        }
      ]
    })
    expect(markdown.split('\n').slice(0, 4)).toEqual([
      '| Command | Base | After | Fixed (fail → pass) | Broken (pass → fail) |',
      '| --- | --- | --- | --- | --- |',
      '| `python3 -m unittest -v` | ❌ fails | ❌ fails (unrelated, fails as on the base: `test_calc.CalcTest.test_legacy`) | `test_calc.CalcTest.test_add` | — |',
      '| `node lint.js` | — not run | ✅ passes | — | — |'
    ])
    expect(markdown).toContain(
      'What still fails failed the same way on the base and is not part of the issue.'
    )
  })

  it('says when verification failed, lists at most five tests, and falls back to the results alone', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    const markdown = renderProofTable({
      validation_results: [result('pytest', 1)],
      verification_passed: false,
      proof: [
        {
          command: 'pytest',
          base: 'passed',
          after: 'failed',
          fixed: [],
          broken: ids,
          unrelated: []
        }
      ]
    })
    expect(markdown).toContain('| ✅ passes | ❌ fails | — | `a`, `b`, `c`, `d`, `e` and 2 more |')
    expect(markdown).toContain('**A failure the change was to fix remains.**')
    expect(renderProofTable({ validation_results: [result('make', 0)] })).toBe(
      '| Command | Base | After |\n| --- | --- | --- |\n| `make` | — | ✅ passes |'
    )
  })

  it('opens with the verification in plain words and the flipped tests, the reproduction first, as code', () => {
    const markdown = renderProofTable({
      validation_results: [result('pytest', 0)],
      verification_passed: true,
      verification: {
        status: 'reproduced-and-fixed',
        reason: 'the new test test_issue_7.py failed on the base (t) and passes with the change',
        tests: [
          { id: 'test_issue_7.py::test_add', base: 'failed', after: 'passed' },
          { id: 't.![p](https://attacker.example/p.png)', base: 'failed', after: 'passed' }
        ],
        reproduction: { path: 'test_issue_7.py', command: 'pytest', committed: true, content: '' }
      },
      proof: []
    })
    expect(markdown.split('\n').slice(0, 6)).toEqual([
      '**Verified: reproduced and fixed.** The new test test\\_issue\\_7.py failed on the base (t) and passes with the change.',
      '',
      '| Test | Base | After |',
      '| --- | --- | --- |',
      '| `test_issue_7.py::test_add` (reproduction) | ❌ fails | ✅ passes |',
      '| `t.![p](https://attacker.example/p.png)` | ❌ fails | ✅ passes |'
    ])
    const unverified = renderProofTable({
      validation_results: [result('make', 0)],
      verification: {
        status: 'unverified',
        reason: 'the plan changes documentation only',
        tests: []
      }
    })
    expect(unverified.split('\n')[0]).toBe('**Unverified: the plan changes documentation only.**')
  })
})
