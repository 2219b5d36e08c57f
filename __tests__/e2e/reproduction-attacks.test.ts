import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { secretFlag } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import { lastUserMessage, startModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { isCommitMessageCall } from './fruit.js'
import { writeInputs } from './scenario.js'

/*
 * Attacks on proof by reproduction (issue 35): the test that reproduced the issue on the base
 * is the one validated and committed, whatever a later reply says about its file.
 */

const cleanups = cleanupAfterEach()
const PY_CALC = 'def add(a, b):\n    return a - b\n'
const EXISTING =
  'import unittest\n\nfrom calc import add\n\n\nclass CalcTest(unittest.TestCase):\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n'
const REPRODUCTION = `import unittest\n\nfrom calc import add\n\n\nclass Issue1Test(unittest.TestCase):\n    def test_add_two_numbers(self):\n        self.assertEqual(add(2, 3), 5)\n`
/** A "test" at the reproduction's path that passes on any code. */
const NEUTERED = `import unittest\n\n\nclass Issue1Test(unittest.TestCase):\n    def test_add_two_numbers(self):\n        self.assertTrue(True)\n`
const TEST_PATH = 'tests/test_issue_1.py'
const block = (path: string, content: string) => `^^^${path}\n${content}^^^end\n`

function codeCommitRepo(): TestRepo {
  const repo = createRepo({
    prefix: 'repro-attack',
    files: {
      '.gitignore': '/agent-config\n',
      'build.sh': 'true\n',
      'calc.py': PY_CALC,
      'tests/__init__.py': '',
      'tests/test_calc.py': EXISTING
    }
  })
  cleanups.push(() => repo.cleanup())
  repo.write('agent-config/query.txt', 'add(2, 3) gives -1, it should give 5\n')
  repo.write('agent-config/codeRollup.txt', `=== calc.py ===\n${PY_CALC}`)
  return repo
}

/** `patchsmith commit` with the unittest suite as a validation command, so a reproduction is asked for. */
async function codeCommit(repo: TestRepo, replies: { query: string; repair: string }) {
  const server = await startModelServer((request) => {
    const user = lastUserMessage(request)
    if (user.includes('Before the fix is drafted, write the test'))
      return block(TEST_PATH, REPRODUCTION)
    if (user.startsWith('[build.sh output]')) return replies.repair
    if (user.startsWith('[query]')) return replies.query
    return 'fix(calc): add returns the sum of its operands'
  })
  cleanups.push(() => server.close())
  const run = await runCliInProcess(
    [
      '--json',
      'commit',
      '--base-url',
      server.url,
      '--validation-command',
      'python3 -m unittest discover -q',
      ...secretFlag('--api-key-file', 'k-1234')
    ],
    { cwd: repo.dir }
  )
  return { run, result: JSON.parse(run.stdout) as CodeAgentOutput }
}

describe('the reproduction is never redrafted (issue 35, attack round)', () => {
  it('code-commit: a reply that rewrites the reproduction file to pass neither commits nor verifies', async () => {
    const repo = codeCommitRepo()
    const base = repo.git('rev-parse', 'HEAD')
    // The query's reply names the reproduction's path before it is written; calc.py stays wrong.
    const stillWrong = `# calc\n${PY_CALC}`
    const { run, result } = await codeCommit(repo, {
      query: block('calc.py', stillWrong) + block(TEST_PATH, NEUTERED),
      repair: block('calc.py', `# calc, again\n${PY_CALC}`) + block(TEST_PATH, NEUTERED)
    })
    expect(run.exitCode, run.stderr).not.toBe(0)
    expect(result.success).toBe(false)
    expect(result.error?.code).toBe('VALIDATION_FAILED')
    expect(result.error?.message).toMatch(/test_add_two_numbers|unittest/)
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
  })

  it('code-commit: replies that leave the reproduction out commit it as written with the fix', async () => {
    const repo = codeCommitRepo()
    const fixed = PY_CALC.replace('a - b', 'a + b')
    const { run, result } = await codeCommit(repo, {
      query: block('calc.py', fixed),
      repair: block('calc.py', fixed)
    })
    expect(run.exitCode, run.stderr).toBe(0)
    const commit = result.data![0]!
    expect(commit.verification).toMatchObject({
      status: 'reproduced-and-fixed',
      reproduction: { path: TEST_PATH, content: REPRODUCTION }
    })
    expect(repo.git('show', `HEAD:${TEST_PATH}`)).toBe(REPRODUCTION.replace(/\n$/, ''))
    expect(repo.git('show', 'HEAD:calc.py')).toBe(fixed.replace(/\n$/, ''))
  })
})

const ISSUE = { number: 7, title: 'add gives the wrong sum', body: 'add(2, 3) gives -1, not 5.' }
const UNITTEST = 'python3 -m unittest discover -q'
const newFile = (path: string, content: string) => {
  const lines = content.replace(/\n$/, '').split('\n')
  return `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`
}

/** A plan-ful run through the action: `test` is the reproduction reply, `draft` every draft. */
async function planned(
  test: string,
  draft: string,
  settings: string,
  prepare?: (repo: TestRepo) => void
) {
  const repo = createRepo({
    prefix: 'repro-attack',
    files: {
      '.gitignore': 'build/\n',
      'calc.py': PY_CALC,
      'tests/__init__.py': '',
      'tests/test_calc.py': EXISTING
    }
  })
  cleanups.push(() => repo.cleanup())
  prepare?.(repo)
  const server = await startModelServer((request) =>
    isCommitMessageCall(request)
      ? 'fix(calc): add returns the sum of its operands'
      : JSON.stringify(request.body.messages).includes('Before the fix is drafted, write the test')
        ? test
        : draft
  )
  cleanups.push(() => server.close())
  const paths = writeInputs(repo, {
    'issue.json': ISSUE,
    'triage.json': { classification: 'bug' },
    'plan.json': {
      branch_name: 'fix/7-add',
      plan_steps: ['Make add return the sum'],
      file_changes: [{ path: 'calc.py', operation: 'MODIFY' }],
      validation_commands: [UNITTEST]
    }
  })
  const run = await runActionInProcess({
    workspace: repo.dir,
    inputs: {
      issue: paths['issue.json']!,
      'triage-result': paths['triage.json']!,
      'fix-plan': paths['plan.json']!,
      'base-url': server.url,
      'api-key': 'sk-test-repro',
      'output-path': `${repo.root}/result.json`,
      'validation-commands': UNITTEST,
      settings
    }
  })
  const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
  return { run, result, repo }
}

describe('the base runs leave nothing for validation to find (issue 35, attack round)', () => {
  it.each([
    ['on an overlay', 'validation-overlay: true'],
    ['on the work tree itself', 'validation-overlay: false']
  ])(
    '%s: an ignored file the reproduction wrote on the base does not make a non-fix pass',
    async (_where, settings) => {
      // On the base the test fails, then leaves build/marker (ignored); a later run that finds
      // the marker passes, whatever add returns.
      const test = `import atexit\nimport os\nimport unittest\n\nfrom calc import add\n\natexit.register(lambda: (os.makedirs('build', exist_ok=True), open('build/marker', 'w').close()))\n\n\nclass Issue7Test(unittest.TestCase):\n    def test_add_two_numbers(self):\n        self.assertTrue(os.path.exists('build/marker') or add(2, 3) == 5)\n`
      const noFix = `--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n+# looked at\n def add(a, b):\n     return a - b\n`
      const { run, result, repo } = await planned(
        newFile('tests/test_issue_7.py', test),
        noFix,
        settings
      )
      expect(run.stdout).toContain('Reproduced on the base: tests/test_issue_7.py fails')
      expect(result.data?.[0]?.verification_passed).not.toBe(true)
      expect(result.success).toBe(false)
      expect(result.error?.code).toBe('VALIDATION_FAILED')
      expect(repo.git('branch', '--list', 'fix/7-add')).toBe('')
    }
  )

  it.each([
    ['on an overlay', 'validation-overlay: true'],
    ['on the work tree itself', 'validation-overlay: false']
  ])(
    '%s: an ignored file that was there, rewritten by the base run, does not make a non-fix pass',
    async (_where, settings) => {
      // build/cache.txt is the user's (ignored, there before the run). On the base the test
      // rewrites it and fails; a later run that reads what it wrote passes, whatever add returns.
      const test = `import os\nimport unittest\n\nfrom calc import add\n\n\nclass Issue7Test(unittest.TestCase):\n    def test_add_two_numbers(self):\n        seen = open('build/cache.txt').read() == 'seen' if os.path.exists('build/cache.txt') else False\n        open('build/cache.txt', 'w').write('seen')\n        self.assertTrue(seen or add(2, 3) == 5)\n`
      const noFix = `--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n+# looked at\n def add(a, b):\n     return a - b\n`
      const { run, result, repo } = await planned(
        newFile('tests/test_issue_7.py', test),
        noFix,
        settings,
        (repo) => repo.write('build/cache.txt', 'fresh')
      )
      expect(run.stdout).toContain('Reproduced on the base: tests/test_issue_7.py fails')
      expect(result.data?.[0]?.verification_passed).not.toBe(true)
      expect(result.success).toBe(false)
      expect(repo.git('branch', '--list', 'fix/7-add')).toBe('')
    }
  )
})
