import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { PROJECT_ROOT, runAction, runCli } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { runActionInProcess } from '../support/in-process.js'
import { startModelServer, type RecordedRequest } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { isCommitMessageCall } from './fruit.js'
import { writeInputs } from './scenario.js'

/*
 * Issue 35: a prose bug report becomes a failing test before it becomes a fix. Real repositories
 * (Python with unittest and pytest, Node with node:test), the real runners in the sandbox, the
 * loopback model answering the reproduction request, the drafts and the commit message apart.
 * Whether the committed test fails on the base is checked by running it on the base commit here,
 * not by reading the result.
 */

const cleanups = cleanupAfterEach()
const BRANCH = 'fix/7-add'
const ISSUE = {
  number: 7,
  title: 'add gives the wrong sum',
  body: 'Calling add(2, 3) gives -1. It should give 5.'
}

const PY_CALC = 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n'
const PY_FIX = `--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n`
const PY_EXISTING = `import unittest

from calc import mul


class CalcTest(unittest.TestCase):
    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)
`
const pyTest = (body: string, imports = 'from calc import add') =>
  `import unittest\n\n${imports}\n\n\nclass Issue7Test(unittest.TestCase):\n    def test_add_two_numbers(self):\n        ${body}\n`
const newFile = (path: string, content: string) => {
  const lines = content.replace(/\n$/, '').split('\n')
  return `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`
}

const JS_CALC =
  'export function add(a, b) {\n  return a - b\n}\n\nexport function mul(a, b) {\n  return a * b\n}\n'
const JS_FIX = `--- a/calc.js\n+++ b/calc.js\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a - b\n+  return a + b\n }\n`
const JS_EXISTING = `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { mul } from '../calc.js'\n\ntest('multiplies', () => {\n  assert.equal(mul(2, 3), 6)\n})\n`
const jsTest = (from: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add } from '${from}'\n\ntest('adds two numbers (issue 7)', () => {\n  assert.equal(add(2, 3), 5)\n})\n`

const isReproductionCall = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages).includes('Before the fix is drafted, write the test')

interface Script {
  tests: string[]
  drafts: string[]
  /** Plan-less runs: the plan the model answers the planning call with. */
  plan?: unknown
}

function model(script: Script) {
  let test = 0
  let draft = 0
  return startModelServer((request) =>
    request.body.response_format?.json_schema?.name === 'fix_plan'
      ? JSON.stringify(script.plan)
      : isCommitMessageCall(request)
        ? 'fix(calc): add returns the sum of its operands'
        : isReproductionCall(request)
          ? (script.tests[test++] ?? 'NO_REPRODUCTION: no more scripted tests')
          : (script.drafts[draft++] ?? 'no more drafts')
  )
}

interface Setup {
  files: Record<string, string>
  command: string
  plan?: { path: string; operation: 'MODIFY' }[]
  triage?: Record<string, unknown>
}

async function setUp(setup: Setup, script: Script) {
  const repo = createRepo({ files: setup.files, prefix: 'repro' })
  cleanups.push(() => repo.cleanup())
  const server = await model(script)
  cleanups.push(() => server.close())
  const paths = writeInputs(repo, {
    'issue.json': ISSUE,
    'triage.json': setup.triage ?? { classification: 'bug' },
    'plan.json': {
      branch_name: BRANCH,
      plan_steps: ['Make add return the sum'],
      file_changes: setup.plan ?? [{ path: Object.keys(setup.files)[0]!, operation: 'MODIFY' }],
      validation_commands: [setup.command]
    }
  })
  return { repo, server, paths }
}

/** The action on `repo` (in-process, or the bundle), its result read from the output file. */
async function runOn(repo: TestRepo, inputs: Record<string, string>, bundled = false) {
  const run = await (bundled ? runAction : runActionInProcess)({
    workspace: repo.dir,
    inputs: { 'api-key': 'sk-test-repro', 'output-path': `${repo.root}/result.json`, ...inputs }
  })
  const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
  return { run, result }
}

async function runIssue(
  setup: Setup,
  script: Script,
  options: { bundled?: boolean; inputs?: Record<string, string> } = {}
) {
  const { repo, server, paths } = await setUp(setup, script)
  const { run, result } = await runOn(
    repo,
    {
      issue: paths['issue.json']!,
      'triage-result': paths['triage.json']!,
      'fix-plan': paths['plan.json']!,
      'base-url': server.url,
      'validation-commands': setup.command,
      ...options.inputs
    },
    options.bundled
  )
  const asked = server.requests.filter(isReproductionCall).map((r) => JSON.stringify(r.body))
  return { run, result, repo, server, asked }
}

/** `patchsmith run` through dist/cli.js on the inputs setUp wrote; the result from its --output file. */
async function runReproCli(
  repo: TestRepo,
  baseUrl: string,
  paths: Record<string, string>,
  command: string
) {
  const output = `${repo.root}/result.json`
  const cli = await runCli(
    [
      'run',
      ...['--repo', repo.dir, '--issue', paths['issue.json']!, '--plan', paths['plan.json']!],
      ...['--triage', paths['triage.json']!, '--base-url', baseUrl],
      ...['--validation-command', command, '--output', output]
    ],
    { env: { OPENAI_API_KEY: 'sk-test-repro' } }
  )
  return { cli, result: JSON.parse(readFileSync(output, 'utf8')) as CodeAgentOutput }
}

/** The command in a fresh clone of origin at `ref`, outside any sandbox: its exit code. */
function runAt(repo: TestRepo, ref: string, command: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-repro-check-'))
  cleanups.push(() => execFileSync('rm', ['-rf', dir]))
  execFileSync('git', ['clone', '-q', repo.origin, dir])
  execFileSync('git', ['-C', dir, 'checkout', '-q', ref])
  try {
    execFileSync('sh', ['-c', command], { cwd: dir, stdio: 'ignore' })
    return 0
  } catch (error) {
    return (error as { status: number }).status
  }
}

const PY_UNITTEST: Setup = {
  files: { 'calc.py': PY_CALC, 'tests/__init__.py': '', 'tests/test_calc.py': PY_EXISTING },
  command: 'python3 -m unittest discover -q'
}

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

  it('(node dist/cli.js, pytest) a test that passes on the base is refused and asked again with its output', async () => {
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
  })

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

describe('proof by reproduction with Vitest (issue 35)', () => {
  it('(node dist/cli.js) a Vitest repository: the reproduction fails on the base by expect().toBe and passes after', async () => {
    const files = {
      'calc.js': JS_CALC,
      'package.json':
        '{ "name": "calc", "type": "module", "scripts": { "test": "vitest run --reporter=verbose" } }\n',
      '.gitignore': 'node_modules/\n',
      'src/calc.test.js': `import { expect, test } from 'vitest'\nimport { mul } from '../calc.js'\n\ntest('multiplies', () => {\n  expect(mul(2, 3)).toBe(6)\n})\n`
    }
    const test = `import { expect, test } from 'vitest'\nimport { add } from '../calc.js'\n\ntest('adds two numbers (issue 7)', () => {\n  expect(add(2, 3)).toBe(5)\n})\n`
    const { repo, server, paths } = await setUp(
      { files, command: 'npm test', plan: [{ path: 'calc.js', operation: 'MODIFY' }] },
      { tests: [newFile('src/issue-7.test.js', test)], drafts: [JS_FIX] }
    )
    // Vitest itself, from this project's own install: hard links, ignored by the repository.
    execFileSync('cp', ['-al', join(PROJECT_ROOT, 'node_modules'), join(repo.dir, 'node_modules')])
    const { cli, result } = await runReproCli(repo, server.url, paths, 'npm test')
    const run = { exitCode: cli.exitCode, summary: cli.stderr }
    expect(run.exitCode, run.summary).toBe(0)
    expect(result.data![0]!.verification).toMatchObject({
      status: 'reproduced-and-fixed',
      reproduction: { path: 'src/issue-7.test.js' }
    })
    expect(result.data![0]!.verification!.tests[0]!.id).toMatch(/adds two numbers \(issue 7\)/)
  })
})

describe('proof by reproduction in the other modes (issue 35)', () => {
  it('a task file: the task that reports a bug gets its reproduction, committed with the fix, whole-file replies', async () => {
    const repo = createRepo({ files: PY_UNITTEST.files, prefix: 'repro-tasks' })
    cleanups.push(() => repo.cleanup())
    const tasks =
      '# Tasks\n\nBranch: fix/7-add\n\n## Phase 1\n- [ ] T001 Fix add in calc.py: add(2, 3) gives -1, it should give 5\n'
    const files = writeInputs(repo, { 'tasks.md': tasks, 'issue.json': ISSUE })
    const test = pyTest('self.assertEqual(add(2, 3), 5)')
    const server = await model({
      tests: [`^^^tests/test_issue_7.py\n${test}^^^end\n`],
      drafts: [`^^^calc.py\n${PY_CALC.replace('a - b', 'a + b')}^^^end\n`]
    })
    cleanups.push(() => server.close())
    const { run, result } = await runOn(repo, {
      'task-file': files['tasks.md']!,
      issue: files['issue.json']!,
      'base-url': server.url,
      'edit-format': 'whole-file',
      'validation-commands': PY_UNITTEST.command
    })
    expect(run.exitCode, run.summary).toBe(0)
    const commit = result.data![0]!
    expect(commit.files_changed.sort()).toEqual(['calc.py', 'tests/test_issue_7.py'])
    expect(commit.verification?.status).toBe('reproduced-and-fixed')
    expect(repo.git('show', `${commit.sha}:tests/test_issue_7.py`)).toBe(test.replace(/\n$/, ''))
  })

  it('plan-less: the generated plan names the code, the reproduction is asked for and committed with the fix', async () => {
    const repo = createRepo({ files: PY_UNITTEST.files, prefix: 'repro-planless' })
    cleanups.push(() => repo.cleanup())
    const files = writeInputs(repo, {
      'issue.json': { ...ISSUE, body: 'Calling `add(2, 3)` in calc.py gives -1. It should give 5.' }
    })
    const test = pyTest('self.assertEqual(add(2, 3), 5)')
    const server = await model({
      plan: {
        root_cause: 'add subtracts its operands',
        plan_steps: ['Make add return a + b'],
        file_changes: [{ path: 'calc.py', operation: 'MODIFY', description: 'Return the sum' }]
      },
      tests: [newFile('tests/test_issue_7.py', test)],
      drafts: [PY_FIX]
    })
    cleanups.push(() => server.close())
    const { run, result } = await runOn(repo, {
      issue: files['issue.json']!,
      'base-url': server.url,
      'validation-commands': PY_UNITTEST.command
    })
    expect(run.exitCode, run.summary).toBe(0)
    const commit = result.data![0]!
    expect(commit.files_changed.sort()).toEqual(['calc.py', 'tests/test_issue_7.py'])
    expect(commit.verification?.status).toBe('reproduced-and-fixed')
  })
})
