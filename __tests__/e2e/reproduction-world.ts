import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runAction, runCli } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { startModelServer, type RecordedRequest } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { isCommitMessageCall } from './fruit.js'
import { writeInputs } from './scenario.js'

/*
 * The world of proof by reproduction (e2e/reproduction*.test.ts, issue 35): Python and Node
 * repositories with a wrong add(), the fix and the tests the model sends, the loopback model
 * answering the reproduction request apart from the drafts and the commit message, and runs of
 * the action and the CLI on them. Beside fruit.ts and scenario.ts, which it builds on.
 */

export const BRANCH = 'fix/7-add'
export const ISSUE = {
  number: 7,
  title: 'add gives the wrong sum',
  body: 'Calling add(2, 3) gives -1. It should give 5.'
}

export const PY_CALC = 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n'
export const PY_FIX = `--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n`
export const PY_EXISTING = `import unittest

from calc import mul


class CalcTest(unittest.TestCase):
    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)
`
export const pyTest = (body: string, imports = 'from calc import add') =>
  `import unittest\n\n${imports}\n\n\nclass Issue7Test(unittest.TestCase):\n    def test_add_two_numbers(self):\n        ${body}\n`
export const newFile = (path: string, content: string) => {
  const lines = content.replace(/\n$/, '').split('\n')
  return `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`
}

export const JS_CALC =
  'export function add(a, b) {\n  return a - b\n}\n\nexport function mul(a, b) {\n  return a * b\n}\n'
export const JS_FIX = `--- a/calc.js\n+++ b/calc.js\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a - b\n+  return a + b\n }\n`
export const JS_EXISTING = `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { mul } from '../calc.js'\n\ntest('multiplies', () => {\n  assert.equal(mul(2, 3), 6)\n})\n`
export const jsTest = (from: string) =>
  `import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add } from '${from}'\n\ntest('adds two numbers (issue 7)', () => {\n  assert.equal(add(2, 3), 5)\n})\n`

export const isReproductionCall = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages).includes('Before the fix is drafted, write the test')

export interface Script {
  tests: string[]
  drafts: string[]
  /** Plan-less runs: the plan the model answers the planning call with. */
  plan?: unknown
}

export function model(script: Script) {
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

export interface Setup {
  files: Record<string, string>
  command: string
  plan?: { path: string; operation: 'MODIFY' }[]
  triage?: Record<string, unknown>
  /** Where the repository is made (RepoOptions.parent). */
  parent?: string
}

/** The action on `repo` (in-process, or the bundle), its result read from the output file. */
export async function runOn(repo: TestRepo, inputs: Record<string, string>, bundled = false) {
  const run = await (bundled ? runAction : runActionInProcess)({
    workspace: repo.dir,
    inputs: { 'api-key': 'sk-test-repro', 'output-path': `${repo.root}/result.json`, ...inputs }
  })
  const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
  return { run, result }
}

/** `patchsmith run` through dist/cli.js on the inputs setUp wrote; the result from its --output file. */
export async function runReproCli(
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

export const PY_UNITTEST: Setup = {
  files: { 'calc.py': PY_CALC, 'tests/__init__.py': '', 'tests/test_calc.py': PY_EXISTING },
  command: 'python3 -m unittest discover -q'
}

/** The runs that leave repositories and servers behind, undone through `cleanups`. */
export function reproductionWorld(cleanups: Array<() => unknown>) {
  async function setUp(setup: Setup, script: Script) {
    const repo = createRepo({ files: setup.files, prefix: 'repro', parent: setup.parent })
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

  return { setUp, runIssue, runAt }
}
