import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { namedTests, reportOf, type CommandRun } from '../../src/validation/index.js'

/**
 * Which failing tests of the base an issue names (the reproduction step's "The issue names
 * tests that fail on the base"), read from real pytest and unittest output: see
 * fixtures/reproduction/README.md.
 */
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/reproduction/${name}`, import.meta.url), 'utf8')

function failing(name: string) {
  const run: CommandRun = { exit_code: 1, stdout: fixture(name), stderr: '' }
  return reportOf(run)!.tests.filter((test) => test.status === 'failed')
}

const named = (text: string, name: string) => namedTests(text, failing(name)).map((test) => test.id)

const CASE = 'tests/test_short_help.py::test_short_help'

describe('tests an issue names, among those that fail on the base', () => {
  it.each(['pytest-parametrized-base.txt', 'pytest-parametrized-verbose.txt'])(
    '%s: pytest ids whose parameters hold spaces are read whole',
    (name) => {
      expect(failing(name).map((test) => test.id)).toEqual([
        `${CASE}[-empty]`,
        `${CASE}[-length includes suffix]`,
        `${CASE}[no-wrap mark-empty]`,
        `${CASE}[no-wrap mark-length includes suffix]`
      ])
    }
  )

  it.each(['pytest-parametrized-base.txt', 'pytest-parametrized-verbose.txt'])(
    '%s: a case named in words is that case, not the other failing cases of its file',
    (name) => {
      const issue =
        'short_help("123 5678 xxxxxx", 10) is 11 characters. tests/test_short_help.py fails on `length includes suffix`.'
      expect(named(issue, name)).toEqual([
        `${CASE}[-length includes suffix]`,
        `${CASE}[no-wrap mark-length includes suffix]`
      ])
    }
  )

  it('a case named as a test identifier (test_length_includes_suffix) is that case', () => {
    expect(
      named('test_length_includes_suffix fails since 2.1', 'pytest-parametrized-base.txt')
    ).toEqual([`${CASE}[-length includes suffix]`, `${CASE}[no-wrap mark-length includes suffix]`])
  })

  it('a case named with its parameters is that case alone', () => {
    expect(named('`test_short_help[-empty]` fails', 'pytest-parametrized-base.txt')).toEqual([
      `${CASE}[-empty]`
    ])
  })

  it('a parametrized test named by its function alone is every failing case of it', () => {
    expect(named('test_short_help fails', 'pytest-parametrized-base.txt')).toHaveLength(4)
  })

  it('the code under test is no test: `short_help` and a word of prose name nothing', () => {
    expect(
      named(
        '`short_help` of an empty text returns None; the short help is too long',
        'pytest-parametrized-base.txt'
      )
    ).toEqual([])
  })

  it('unittest: a test named in prose is that test, not the other failures of its module', () => {
    const issue =
      'In tests/test_short_help_unittest.py the check that the length includes suffix fails.'
    expect(named(issue, 'unittest-named-base.txt')).toEqual([
      'tests.test_short_help_unittest.ShortHelpTest.test_length_includes_suffix'
    ])
  })

  it('unittest: a test named by Class.method is that test', () => {
    expect(named('ShortHelpTest.test_empty fails', 'unittest-named-base.txt')).toEqual([
      'tests.test_short_help_unittest.ShortHelpTest.test_empty'
    ])
  })

  it('unittest: a module named alone is every failing test of it', () => {
    expect(named('tests/test_short_help_unittest.py fails', 'unittest-named-base.txt')).toEqual([
      'tests.test_short_help_unittest.ShortHelpTest.test_empty',
      'tests.test_short_help_unittest.ShortHelpTest.test_length_includes_suffix'
    ])
  })
})
