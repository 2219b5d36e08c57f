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
      '| `python3 -m unittest -v` | ❌ fails | ❌ fails (unrelated, fails as on the base: test_calc.CalcTest.test_legacy) | test_calc.CalcTest.test_add | — |',
      '| `node lint.js` | — not run | ✅ passes | — | — |'
    ])
    expect(markdown).toContain('**Verification passed**')
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
    expect(markdown).toContain('| ✅ passes | ❌ fails | — | a, b, c, d, e and 2 more |')
    expect(markdown).toContain('**Verification failed**')
    expect(renderProofTable({ validation_results: [result('make', 0)] })).toBe(
      '| Command | Base | After |\n| --- | --- | --- |\n| `make` | — | ✅ passes |'
    )
  })
})
