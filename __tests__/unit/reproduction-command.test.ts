import { describe, expect, it } from 'vitest'
import { reproductionLocation, type TestFramework } from '../../src/validation/index.js'

/**
 * The reproduction lands where the validation command runs it (the walk-through on
 * pallets/click: `pytest tests/test_utils.py` never ran `tests/test_issue_7.py`).
 */
const CLICK = [
  'src/click/utils.py',
  'tests/test_basic.py',
  'tests/test_utils.py',
  'tests/unit/test_echo.py',
  'tests/unit/test_open_file.py'
]
const PLANNED = ['src/click/utils.py']

function located(framework: TestFramework, command: string, tracked = CLICK, planned = PLANNED) {
  const { path, command: runBy } = reproductionLocation(framework, tracked, planned, 7, command)
  return { path, command: runBy }
}

describe('reproductionLocation with the test command: a place the command runs', () => {
  it('a command naming a test file runs the new file too: its path is added to the runner', () => {
    expect(located('pytest', 'PYTHONPATH=src python3 -m pytest tests/test_utils.py -q')).toEqual({
      path: 'tests/test_issue_7.py',
      command: 'PYTHONPATH=src python3 -m pytest tests/test_utils.py -q tests/test_issue_7.py'
    })
  })

  it("the path goes among the runner's arguments, not a later command's", () => {
    expect(located('pytest', 'pytest tests/test_utils.py::test_x && flake8 src').command).toBe(
      'pytest tests/test_utils.py::test_x tests/test_issue_7.py && flake8 src'
    )
  })

  it('a command naming a folder gets the new file in it, and runs as written', () => {
    expect(located('pytest', 'PYTHONPATH=src python3 -m pytest tests/unit')).toEqual({
      path: 'tests/unit/test_issue_7.py',
      command: 'PYTHONPATH=src python3 -m pytest tests/unit'
    })
    expect(located('pytest', 'pytest ./tests/unit/ -k echo').path).toBe(
      'tests/unit/test_issue_7.py'
    )
  })

  it('a command naming no path (the whole suite) runs as written, the file beside the closest test', () => {
    expect(located('pytest', 'python3 -m pytest -q -p no:cacheprovider')).toEqual({
      path: 'tests/test_issue_7.py',
      command: 'python3 -m pytest -q -p no:cacheprovider'
    })
  })

  it("an option's value is no path: -k tests, --ignore tests/unit", () => {
    expect(located('pytest', 'pytest --ignore tests/unit -k tests').command).toBe(
      'pytest --ignore tests/unit -k tests'
    )
  })

  it.each([
    [
      'node-test',
      'node --test test/calc.test.js',
      ['calc.js', 'test/calc.test.js', 'test/more/mul.test.js'],
      'node --test test/calc.test.js test/issue-7.test.js'
    ],
    [
      'vitest',
      'npx vitest run src/a.spec.ts',
      ['src/a.ts', 'src/a.spec.ts'],
      'npx vitest run src/a.spec.ts src/issue-7.spec.ts'
    ],
    [
      'jest',
      'npx jest src/a.test.js --ci',
      ['src/a.js', 'src/a.test.js'],
      'npx jest src/a.test.js --ci src/issue-7.test.js'
    ]
  ] as const)('%s: %s', (framework, command, tracked, expected) => {
    expect(reproductionLocation(framework, tracked, [tracked[0]], 7, command).command).toBe(
      expected
    )
  })

  it('go test: the test stays in the planned package; a command naming other packages runs it too', () => {
    const tracked = ['calc/calc.go', 'calc/calc_test.go', 'web/web.go', 'web/web_test.go']
    expect(reproductionLocation('go', tracked, ['web/web.go'], 7, 'go test ./calc')).toMatchObject({
      path: 'web/issue_7_test.go',
      command: 'go test ./calc ./web'
    })
    expect(reproductionLocation('go', tracked, ['web/web.go'], 7, 'go test ./...').command).toBe(
      'go test ./...'
    )
    expect(reproductionLocation('go', tracked, ['web/web.go'], 7, 'go test ./web').command).toBe(
      'go test ./web'
    )
  })
})
