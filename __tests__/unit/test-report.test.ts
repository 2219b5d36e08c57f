import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  normaliseOutput,
  parseTestReport,
  type TestReport
} from '../../src/validation/test-report/index.js'

// Each fixture is a runner's real output for the same small project (add(2, 3) returns -1, a
// passing mul, a skipped test), produced on the development machine; see __tests__/fixtures/test-reports.
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/test-reports/${name}`, import.meta.url), 'utf8')
const statuses = (report: TestReport | undefined) =>
  Object.fromEntries((report?.tests ?? []).map((t) => [t.id, t.status]))
const failure = (report: TestReport | undefined, id: string) =>
  report?.tests.find((t) => t.id === id)?.message

describe('per-test reports from real runner output', () => {
  it('reads python -m unittest -v and its plain output', () => {
    const verbose = parseTestReport(fixture('unittest-v.txt'))
    expect(verbose?.runner).toBe('unittest')
    expect(statuses(verbose)).toEqual({
      'test_calc.CalcTest.test_add': 'failed',
      'test_calc.CalcTest.test_div': 'skipped',
      'test_calc.CalcTest.test_error': 'failed',
      'test_calc.CalcTest.test_mul': 'passed'
    })
    expect(failure(verbose, 'test_calc.CalcTest.test_add')).toContain('AssertionError: -1 != 5')
    expect(failure(verbose, 'test_calc.CalcTest.test_error')).toContain('boom at <addr>')
    const plain = parseTestReport(fixture('unittest.txt'))
    expect(statuses(plain)).toEqual({
      'test_calc.CalcTest.test_add': 'failed',
      'test_calc.CalcTest.test_error': 'failed'
    })
  })

  it('reads pytest, verbose or not, and its JUnit XML', () => {
    const plain = parseTestReport(fixture('pytest.txt'))
    expect(plain?.runner).toBe('pytest')
    expect(failure(plain, 'test_calc.py::CalcTest::test_add')).toBe('AssertionError: -1 != 5')
    expect(statuses(parseTestReport(fixture('pytest-v.txt')))).toEqual({
      'test_calc.py::CalcTest::test_add': 'failed',
      'test_calc.py::CalcTest::test_div': 'skipped',
      'test_calc.py::CalcTest::test_error': 'failed',
      'test_calc.py::CalcTest::test_mul': 'passed'
    })
    expect(statuses(parseTestReport(fixture('pytest-fixed.txt')))).toEqual({
      'test_calc.py::CalcTest::test_error': 'failed'
    })
    const xml = parseTestReport(fixture('pytest-junit.xml'))
    expect(xml?.runner).toBe('junit')
    expect(statuses(xml)).toEqual({
      'test_calc.CalcTest.test_add': 'failed',
      'test_calc.CalcTest.test_div': 'skipped',
      'test_calc.CalcTest.test_error': 'failed',
      'test_calc.CalcTest.test_mul': 'passed'
    })
    expect(failure(xml, 'test_calc.CalcTest.test_add')).toContain('AssertionError: -1 != 5')
  })

  it('reads Jest and Vitest default reporters', () => {
    const jest = parseTestReport(fixture('jest.txt'))
    expect(jest?.runner).toBe('jest')
    expect(statuses(jest)).toEqual({
      'calc › adds': 'failed',
      'calc › multiplies': 'passed',
      'calc › divides': 'skipped'
    })
    expect(failure(jest, 'calc › adds')).toContain('Expected: 5\nReceived: -1')
    const vitest = parseTestReport(fixture('vitest.txt'))
    expect(vitest?.runner).toBe('vitest')
    expect(statuses(vitest)).toEqual({
      'calc > adds': 'failed',
      multiplies: 'passed',
      divides: 'skipped'
    })
    expect(failure(vitest, 'calc > adds')).toContain('expected -1 to be 5')
  })

  it('reads Mocha spec output and TAP from mocha and node --test', () => {
    const mocha = parseTestReport(fixture('mocha.txt'))
    expect(mocha?.runner).toBe('mocha')
    expect(statuses(mocha)).toEqual({
      'calc adds': 'failed',
      'calc multiplies': 'passed',
      'calc divides': 'skipped'
    })
    expect(failure(mocha, 'calc adds')).toContain('-1 !== 5')
    const mochaTap = parseTestReport(fixture('mocha-tap.txt'))
    expect(mochaTap?.runner).toBe('tap')
    expect(statuses(mochaTap)).toEqual({
      'calc adds': 'failed',
      'calc multiplies': 'passed',
      'calc divides': 'skipped'
    })
    const nodeTap = parseTestReport(fixture('node-tap.txt'))
    expect(statuses(nodeTap)).toEqual({ adds: 'failed', multiplies: 'passed' })
    expect(failure(nodeTap, 'adds')).toContain('actual: -1')
    expect(failure(nodeTap, 'adds')).not.toMatch(/duration|async_hooks|node\.test\.js/)
  })

  it('reads go test, go test -v and go test -json', () => {
    expect(statuses(parseTestReport(fixture('go.txt')))).toEqual({ TestAdd: 'failed' })
    const verbose = parseTestReport(fixture('go-v.txt'))
    expect(statuses(verbose)).toEqual({
      TestAdd: 'failed',
      TestMul: 'passed',
      TestTable: 'passed',
      'TestTable/small': 'passed',
      'TestTable/skipped': 'skipped'
    })
    expect(failure(verbose, 'TestAdd')).toBe('calc_test.go:<pos>: Add(2, 3) = -1, want 5')
    const json = parseTestReport(fixture('go-json.txt'))
    expect(json?.runner).toBe('go-json')
    expect(statuses(json)).toEqual(statuses(verbose))
    expect(failure(json, 'TestAdd')).toBe(failure(verbose, 'TestAdd'))
  })

  it('reads cargo test, without the backtrace or the thread id', () => {
    const cargo = parseTestReport(fixture('cargo.txt'))
    expect(statuses(cargo)).toEqual({
      'tests::add_works': 'failed',
      'tests::mul_works': 'passed',
      'tests::slow': 'skipped'
    })
    expect(failure(cargo, 'tests::add_works')).toContain('left: -1\nright: 5')
    expect(failure(cargo, 'tests::add_works')).not.toMatch(/29474|backtrace|rustc/)
  })

  it('finds no tests in output no runner wrote', () => {
    expect(parseTestReport('src/a.ts(3,1): error TS2304: Cannot find name x.\n')).toBeUndefined()
    expect(parseTestReport('make: *** [all] Error 1\n')).toBeUndefined()
  })
})

describe('normaliseOutput', () => {
  it('drops timings, dates, temporary paths and addresses, and keeps asserted values', () => {
    const a =
      'FAILED t.py::test_x - assert 0x7f3a2c1b9e80 == 5 at /tmp/pytest-of-root/p0/x.py:12 in 1.93s (2026-11-26T04:05:29Z)'
    const b =
      'FAILED t.py::test_x - assert 0x7f00aa112233 == 5 at /tmp/pytest-of-root/p9/x.py:14 in 0.20s (2026-11-27T01:00:00Z)'
    expect(normaliseOutput(a)).toBe(normaliseOutput(b))
    expect(normaliseOutput('expected 5, got -1')).not.toBe(normaliseOutput('expected 5, got -2'))
    expect(normaliseOutput('left: -1\n right: 5')).toBe('left: -1\nright: 5')
  })
})

describe('hostile output', () => {
  // Each of these took minutes before (a /m gate starting with ^\s* backtracks over every blank
  // line; a failure block read to the end of the output for each failure): the suite's timeout
  // is what fails them, by orders of magnitude.
  const blank = '\n'.repeat(400_000)
  it.each([
    ['TAP', `${blank}TAP version 13\n`],
    ['Vitest', `${blank} Test Files  1 failed\n`],
    ['Mocha', `  1 passing (2ms)\n  1 failing\n${'  1) x\n'.repeat(60_000)}`],
    ['Mocha blocks', `  1) a\n  1 passing (2ms)\n${'  1) a:\n     x\n'.repeat(60_000)}`],
    ['TAP blocks', `TAP version 13\n${'not ok 1 - x\n'.repeat(2)}${'  y\n'.repeat(200_000)}`]
  ])('%s is read in linear time', (_name, output) => {
    expect(() => parseTestReport(output)).not.toThrow()
  })
})
