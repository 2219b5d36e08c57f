import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout } from '../support/sandbox-needs.js'
import {
  BRANCH,
  PY_CALC,
  PY_FIX,
  pyTest,
  newFile,
  JS_CALC,
  JS_FIX,
  JS_EXISTING,
  jsTest,
  isReproductionCall,
  type Setup,
  runReproCli,
  PY_UNITTEST,
  reproductionWorld
} from './reproduction-world.js'

/*
 * Issue 35: a prose bug report becomes a failing test before it becomes a fix. Real repositories
 * (Python with unittest and pytest, Node with node:test), the real runners in the sandbox, the
 * loopback model answering the reproduction request, the drafts and the commit message apart.
 * Whether the committed test fails on the base is checked by running it on the base commit here,
 * not by reading the result.
 */

const { setUp, runIssue, runAt } = reproductionWorld(cleanupAfterEach())

describe('proof by reproduction (issue 35)', () => {
  it('(node dist/index.js, unittest) a prose bug report ends with a committed test that fails on the base and passes after', async () => {
    const test = pyTest('self.assertEqual(add(2, 3), 5)')
    const { run, result, repo, asked } = await runIssue(
      PY_UNITTEST,
      { tests: [newFile('tests/test_issue_7.py', test)], drafts: [PY_FIX] },
      { bundled: true }
    )
    expect(run.exitCode, run.summary).toBe(0)
    const commit = result.data![0]!
    expect(commit.files_changed.sort()).toEqual(['calc.py', 'tests/test_issue_7.py'])
    expect(commit.verification).toMatchObject({
      status: 'reproduced-and-fixed',
      tests: [
        {
          id: 'tests.test_issue_7.Issue7Test.test_add_two_numbers',
          base: 'failed',
          after: 'passed'
        }
      ],
      reproduction: { path: 'tests/test_issue_7.py', committed: true }
    })
    expect(commit.verification_passed).toBe(true)
    // The request showed the framework, an existing test to follow and the code under test.
    expect(asked[0]).toContain('Python unittest')
    expect(asked[0]).toContain('tests/test_calc.py')
    expect(asked[0]).toContain('return a - b')
    // The committed test on the base commit fails; on the commit it passes.
    const onBase = `git checkout -q ${commit.base_sha} -- calc.py && python3 -m unittest -q tests.test_issue_7`
    expect(runAt(repo, BRANCH, onBase)).not.toBe(0)
    expect(runAt(repo, BRANCH, 'python3 -m unittest -q tests.test_issue_7')).toBe(0)
    // Every surface names the test: the proof table in the summary, the pull-request body.
    expect(run.summary).toContain('tests.test_issue_7.Issue7Test.test_add_two_numbers')
    expect(result.pull_request?.body).toContain('test_add_two_numbers')
    expect(result.pull_request?.body).toContain('self.assertEqual(add(2, 3), 5)')
  })

  it.skipIf(skipWithout('pytest'))(
    '(node dist/cli.js, pytest) a test that passes on the base is refused and asked again with its output',
    async () => {
      const setup: Setup = {
        files: {
          'calc.py': PY_CALC,
          'test_calc.py': 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n'
        },
        command: 'python3 -m pytest -q -p no:cacheprovider'
      }
      const passing = `from calc import mul\n\n\ndef test_add_two_numbers():\n    assert mul(2, 3) == 6\n`
      const failing = `from calc import add\n\n\ndef test_add_two_numbers():\n    assert add(2, 3) == 5\n`
      const { repo, server, paths } = await setUp(setup, {
        tests: [newFile('test_issue_7.py', passing), newFile('test_issue_7.py', failing)],
        drafts: [PY_FIX]
      })
      const { cli, result } = await runReproCli(repo, server.url, paths, setup.command)
      expect(cli.exitCode, cli.stderr).toBe(0)
      expect(cli.stderr).toMatch(
        /Verified \(reproduced-and-fixed\): the new test test_issue_7.py failed/
      )
      const asked = server.requests.filter(isReproductionCall).map((r) => JSON.stringify(r.body))
      expect(asked).toHaveLength(2)
      expect(asked[1]).toContain('was not a reproduction: it passes on the base')
      expect(result.data![0]!.verification).toMatchObject({
        status: 'reproduced-and-fixed',
        tests: [{ id: 'test_issue_7.py::test_add_two_numbers', base: 'failed', after: 'passed' }]
      })
      expect(repo.git('show', `${BRANCH}:test_issue_7.py`)).toContain('assert add(2, 3) == 5')
    }
  )

  it('(node dist/index.js, node:test) a test that fails only because a module cannot be found is refused; the next one reproduces', async () => {
    const setup: Setup = {
      files: {
        'calc.js': JS_CALC,
        'package.json':
          '{ "name": "calc", "type": "module", "scripts": { "test": "node --test" } }\n',
        'test/calc.test.js': JS_EXISTING
      },
      command: 'npm test'
    }
    const { run, result, asked } = await runIssue(
      setup,
      {
        tests: [
          newFile('test/issue-7.test.js', jsTest('../src/calc.js')),
          newFile('test/issue-7.test.js', jsTest('../calc.js'))
        ],
        drafts: [JS_FIX]
      },
      { bundled: true }
    )
    expect(run.exitCode, run.summary).toBe(0)
    expect(asked).toHaveLength(2)
    expect(asked[1]).toMatch(/was not a reproduction: it fails by an error, not an assertion/)
    expect(asked[1]).toContain('Cannot find module')
    expect(result.data![0]!.verification).toMatchObject({
      status: 'reproduced-and-fixed',
      tests: [{ id: 'adds two numbers (issue 7)' }]
    })
  })

  it('a docs issue commits as unverified and says why on every surface', async () => {
    const setup: Setup = {
      files: { 'README.md': '# calc\n\nAdds numbers.\n', ...PY_UNITTEST.files },
      command: PY_UNITTEST.command,
      plan: [{ path: 'README.md', operation: 'MODIFY' }],
      triage: { classification: 'docs' }
    }
    const fix = `--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # calc\n \n-Adds numbers.\n+Adds and multiplies numbers.\n`
    const { run, result, asked } = await runIssue(setup, { tests: [], drafts: [fix] })
    expect(run.exitCode, run.summary).toBe(0)
    expect(asked).toHaveLength(0)
    const commit = result.data![0]!
    expect(commit.verification_passed).toBe(false)
    expect(commit.verification).toMatchObject({
      status: 'unverified',
      reason: expect.stringMatching(/triage classifies the issue as docs/)
    })
    expect(run.summary).toMatch(/Unverified: the triage classifies the issue as docs/)
    expect(result.pull_request?.body).toMatch(/Unverified: the triage classifies the issue as docs/)
  })

  it('a test sent as a code block, not as a diff making the file, is refused; the reason reads as a sentence', async () => {
    const block = '```python\n' + pyTest('self.assertEqual(add(2, 3), 5)') + '```\n'
    const { result } = await runIssue(PY_UNITTEST, { tests: [block, block], drafts: [PY_FIX] })
    expect(result.success).toBe(true)
    expect(result.data![0]!.verification).toMatchObject({
      status: 'unverified',
      reason: expect.stringMatching(
        /^no reproduction after 2 attempt\(s\): the last test could not be read as a new test file: /
      )
    })
  })

  it('require-reproduction: true stops with VALIDATION_FAILED when no reproduction is found, nothing committed', async () => {
    const { run, result, repo } = await runIssue(
      PY_UNITTEST,
      { tests: ['NO_REPRODUCTION: it is a feature request'], drafts: [PY_FIX] },
      { inputs: { settings: 'require-reproduction: true' } }
    )
    expect(run.exitCode).not.toBe(0)
    expect(result.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { rule: 'reproduction-required' }
    })
    expect(result.error!.message).toMatch(
      /No reproduction: the model found nothing a test can show: it is a feature request/
    )
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})
