import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  judgeReproduction,
  reproductionLocation,
  testFramework
} from '../../src/validation/reproduction/index.js'
import type { CommandRun } from '../../src/validation/index.js'

// Real output of each runner, recorded on this machine (see the fixtures' README).
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/reproduction/${name}`, import.meta.url), 'utf8')
const run = (name: string, exit_code: number): CommandRun => ({
  exit_code,
  stdout: fixture(name),
  stderr: ''
})

describe('testFramework: which framework a validation command runs', () => {
  it.each([
    ['python3 -m unittest discover -q', 'unittest'],
    ['python -m pytest -q tests', 'pytest'],
    ['pytest', 'pytest'],
    ['node --test', 'node-test'],
    ['node --experimental-vm-modules --test test/', 'node-test'],
    ['npx vitest run', 'vitest'],
    ['npx jest --ci', 'jest'],
    ['go test ./...', 'go'],
    ['cargo test --offline', 'cargo'],
    ['mvn -q test', 'maven'],
    ['./gradlew test', 'gradle']
  ])('%s → %s', (command, framework) => {
    expect(testFramework(command)).toBe(framework)
  })

  it('follows npm test and npm run into package.json, never in a loop', () => {
    const scripts = { test: 'npm run unit', unit: 'vitest run', loop: 'npm run loop' }
    expect(testFramework('npm test', scripts)).toBe('vitest')
    expect(testFramework('npm run loop', scripts)).toBeUndefined()
    expect(testFramework('grep -q world greet.txt')).toBeUndefined()
    expect(testFramework('node src/math.js')).toBeUndefined()
  })
})

describe('reproductionLocation: beside the closest test, named as the tests are', () => {
  it.each([
    ['unittest', ['calc.py', 'tests/test_calc.py'], ['calc.py'], 'tests/test_issue_7.py'],
    ['pytest', ['pkg/calc.py', 'pkg/calc_test.py'], ['pkg/calc.py'], 'pkg/issue_7_test.py'],
    ['node-test', ['calc.js', 'test/calc.test.js'], ['calc.js'], 'test/issue-7.test.js'],
    ['vitest', ['src/a.ts', 'src/a.spec.ts', 'e2e/b.spec.ts'], ['src/a.ts'], 'src/issue-7.spec.ts'],
    ['go', ['calc/calc.go', 'calc/calc_test.go'], ['calc/calc.go'], 'calc/issue_7_test.go'],
    ['cargo', ['src/lib.rs', 'tests/calc.rs'], ['src/lib.rs'], 'tests/issue_7.rs'],
    [
      'maven',
      ['src/main/java/a/Calc.java', 'src/test/java/a/CalcTest.java'],
      ['src/main/java/a/Calc.java'],
      'src/test/java/a/Issue7Test.java'
    ]
  ] as const)('%s: %j → %s', (framework, tracked, planned, path) => {
    expect(reproductionLocation(framework, tracked, planned, 7).path).toBe(path)
  })

  it("a repository without tests gets the framework's usual place; an existing name is never reused", () => {
    expect(reproductionLocation('pytest', ['calc.py'], ['calc.py'], 7)).toEqual({
      path: 'test_issue_7.py'
    })
    expect(
      reproductionLocation('unittest', ['calc.py', 'test_calc.py', 'test_issue_7.py'], [], 7).path
    ).toBe('test_issue_7_2.py')
    expect(
      reproductionLocation(
        'maven',
        ['src/main/java/a/b/Calc.java'],
        ['src/main/java/a/b/Calc.java'],
        3
      ).path
    ).toBe('src/test/java/a/b/Issue3Test.java')
  })
})

describe('judgeReproduction: a reproduction fails on the base by an assertion of the new test', () => {
  it('unittest: an AssertionError of the new test is a reproduction; the test named', () => {
    const judged = judgeReproduction(
      run('unittest-base.txt', 0),
      run('unittest-repro.txt', 1),
      'test_issue_7.py'
    )
    expect(judged).toMatchObject({
      ok: true,
      tests: ['test_issue_7.Issue7Test.test_add_two_numbers']
    })
  })

  it('unittest and pytest: an ImportError is refused, naming the error', () => {
    const unittest = judgeReproduction(
      run('unittest-base.txt', 0),
      run('unittest-import-error.txt', 1),
      'test_issue_8.py'
    )
    expect(unittest.ok).toBe(false)
    expect(!unittest.ok && unittest.problem).toMatch(
      /error.*ImportError: cannot import name 'plus'/
    )
    const pytest = judgeReproduction(
      run('pytest-base.txt', 0),
      run('pytest-import-error.txt', 2),
      'test_issue_8.py'
    )
    expect(!pytest.ok && pytest.problem).toMatch(/error.*ImportError/)
  })

  it('pytest: an assertion of the new test is a reproduction', () => {
    const judged = judgeReproduction(
      run('pytest-base.txt', 0),
      run('pytest-repro.txt', 1),
      'test_issue_7.py'
    )
    expect(judged).toMatchObject({
      ok: true,
      tests: ['test_issue_7.py::Issue7Test::test_add_two_numbers']
    })
  })

  it('node:test: ERR_ASSERTION is a reproduction, a module that cannot be found is not', () => {
    const judged = judgeReproduction(
      run('node-test-base.txt', 0),
      run('node-test-repro.txt', 1),
      'test/issue-7.test.js'
    )
    expect(judged).toMatchObject({ ok: true, tests: ['adds two numbers (issue 7)'] })
    const missing = judgeReproduction(
      run('node-test-base.txt', 0),
      run('node-test-missing-module.txt', 1),
      'test/issue-7.test.js'
    )
    expect(!missing.ok && missing.problem).toMatch(/error.*Cannot find module/)
  })

  it('cargo: a failed assert_eq! is a reproduction, a compile error is not', () => {
    const judged = judgeReproduction(
      run('cargo-base.txt', 0),
      run('cargo-repro.txt', 101),
      'tests/issue_7.rs'
    )
    expect(judged).toMatchObject({ ok: true, tests: ['adds_two_numbers'] })
    const compile = judgeReproduction(
      run('cargo-base.txt', 0),
      run('cargo-compile-error.txt', 101),
      'tests/issue_7.rs'
    )
    expect(!compile.ok && compile.problem).toMatch(/error\[E0425\]/)
  })

  it('go: a t.Errorf with got and want is a reproduction, an undefined name is not', () => {
    const judged = judgeReproduction(
      run('go-base.txt', 0),
      run('go-repro.txt', 1),
      'issue_7_test.go'
    )
    expect(judged).toMatchObject({ ok: true })
    expect(judged.ok && judged.tests.join()).toMatch(/TestIssue7AddsTwoNumbers/)
    const build = judgeReproduction(
      run('go-base.txt', 0),
      run('go-build-error.txt', 2),
      'issue_7_test.go'
    )
    expect(!build.ok && build.problem).toMatch(/error.*undefined: Plus/)
  })

  it('a test that passes on the base is no reproduction', () => {
    const judged = judgeReproduction(
      run('unittest-base.txt', 0),
      run('unittest-base.txt', 0),
      'test_issue_7.py'
    )
    expect(!judged.ok && judged.problem).toMatch(/passes on the base/)
  })

  it('a new test that breaks a test passing on the base is no reproduction', () => {
    const broken = fixture('pytest-repro.txt')
      .replace('.F ', 'FF ')
      .replace('1 failed, 1 passed', '2 failed')
      .replace(
        'FAILED test_issue_7.py',
        'FAILED test_calc.py::CalcTest::test_mul - AssertionError: 5 != 6\nFAILED test_issue_7.py'
      )
    const baseRun = run('pytest-base.txt', 0)
    baseRun.stdout = `test_calc.py::CalcTest::test_mul PASSED\n${baseRun.stdout}`
    const judged = judgeReproduction(
      baseRun,
      { exit_code: 1, stdout: broken, stderr: '' },
      'test_issue_7.py'
    )
    expect(!judged.ok && judged.problem).toMatch(
      /breaks tests that pass on the base: test_calc.py::CalcTest::test_mul/
    )
  })
})
