import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runAction } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { startModelServer, type ModelServer } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { isCommitMessageCall } from './fruit.js'
import { writeInputs } from './scenario.js'

/*
 * Issue 26's headline case through `node dist/index.js`: the issue is a failing test
 * ("test_add fails: add(2, 3) returns -1, expected 5"), the plan's command is the real
 * `python3 -m unittest -v`, and the model's drafts are scripted. Case (a) runs the bundle; the
 * others run in-process (src/main.ts's run()), sparing a Node start and the bundle's load each.
 */

const cleanups = cleanupAfterEach()
const BRANCH = 'fix/7-add'
const COMMAND = 'python3 -m unittest -v'
const CALC = 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n'
const TESTS = `import unittest
from calc import add, mul


class CalcTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)
`
const LEGACY = `import unittest


class LegacyTest(unittest.TestCase):
    def test_legacy_export(self):
        raise NotImplementedError("the legacy exporter was removed")
`

/** A diff of calc.py from `from` (its add and mul bodies) to `to`. */
function calc(
  from: [string, string],
  to: [string, string],
  docstring = false,
  hadDocstring = false
): string {
  const lines = (add: string, mul: string, doc: boolean) => [
    'def add(a, b):',
    ...(doc ? ['    """Add two numbers."""'] : []),
    `    return ${add}`,
    '',
    '',
    'def mul(a, b):',
    `    return ${mul}`
  ]
  const before = lines(from[0], from[1], hadDocstring)
  const after = lines(to[0], to[1], docstring)
  return `--- a/calc.py\n+++ b/calc.py\n@@ -1,${before.length} +1,${after.length} @@\n${before.map((l) => `-${l}`).join('\n')}\n${after.map((l) => `+${l}`).join('\n')}\n`
}
const BASE: [string, string] = ['a - b', 'a * b']
const FIXED: [string, string] = ['a + b', 'a * b']

interface Run {
  exitCode: number
  result: CodeAgentOutput
  server: ModelServer
  summary: string
  requests: string[]
}

async function runIssue(
  drafts: string[],
  options: { legacy?: boolean; inputs?: Record<string, string>; bundled?: boolean } = {}
): Promise<Run> {
  const repo = createRepo({
    files: {
      'calc.py': CALC,
      'test_calc.py': TESTS,
      ...(options.legacy ? { 'test_legacy.py': LEGACY } : {})
    },
    prefix: 'failing-test'
  })
  cleanups.push(() => repo.cleanup())
  let draft = 0
  const server = await startModelServer((request) =>
    isCommitMessageCall(request)
      ? 'fix(calc): add adds its two operands'
      : (drafts[draft++] ?? 'no more drafts')
  )
  cleanups.push(() => server.close())
  const paths = writeInputs(repo, {
    'issue.json': {
      number: 7,
      title: 'test_add fails',
      body: '`test_add` fails: add(2, 3) returns -1, expected 5'
    },
    'plan.json': {
      branch_name: BRANCH,
      plan_steps: ['Root cause: add subtracts its operands', 'Make add return a + b'],
      file_changes: [{ path: 'calc.py', operation: 'MODIFY' }],
      validation_commands: [COMMAND]
    }
  })
  const runner = options.bundled ? runAction : runActionInProcess
  const run = await runner({
    workspace: repo.dir,
    inputs: {
      issue: paths['issue.json']!,
      'fix-plan': paths['plan.json']!,
      'base-url': server.url,
      'api-key': 'sk-test-failing',
      'output-path': `${repo.root}/result.json`,
      'max-repairs': '3',
      'validation-commands': COMMAND,
      ...options.inputs
    }
  })
  const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as CodeAgentOutput
  const requests = server.requests
    .filter((r) => !isCommitMessageCall(r))
    .map((r) => JSON.stringify(r.body.messages))
  return { exitCode: run.exitCode, result, server, summary: run.summary, requests }
}

const proofOf = (run: Run) => run.result.data?.[0]?.proof?.[0]

describe('an issue that is a failing test (python3 -m unittest)', () => {
  it('(a, node dist/index.js) a useless first draft gets a repair that says the target still fails, then the fix commits with proof', async () => {
    const drafts = [calc(BASE, BASE, true), calc(BASE, FIXED, true, true)]
    const run = await runIssue(drafts, { bundled: true })
    expect(run.exitCode, run.summary).toBe(0)
    expect(run.result.metrics).toMatchObject({ attempts: 2, repairs: 1, stop_reason: 'validated' })
    expect(run.requests[1]).toContain('The draft did not fix it: still')
    expect(run.requests[1]).toContain('test_calc.CalcTest.test_add fails exactly as on the base')
    expect(run.result.data![0]).toMatchObject({
      verification_passed: true,
      root_cause: 'add subtracts its operands'
    })
    expect(proofOf(run)).toEqual({
      command: COMMAND,
      base: 'failed',
      after: 'passed',
      runner: 'unittest',
      fixed: ['test_calc.CalcTest.test_add'],
      broken: [],
      unrelated: []
    })
    expect(run.summary).toContain(
      '| `python3 -m unittest -v` | ❌ fails | ✅ passes | `test_calc.CalcTest.test_add` | — |'
    )
  })

  it('(b) a wrong first draft changes the failure: repaired as a target, then committed', async () => {
    const run = await runIssue([calc(BASE, ['a * b', 'a * b']), calc(['a * b', 'a * b'], FIXED)])
    expect(run.exitCode, run.summary).toBe(0)
    expect(run.result.metrics).toMatchObject({ attempts: 2, repairs: 1 })
    expect(run.requests[1]).toContain(
      'test_calc.CalcTest.test_add fails, differently than on the base'
    )
    expect(run.requests[1]).toContain('6 != 5')
    expect(proofOf(run)?.fixed).toEqual(['test_calc.CalcTest.test_add'])
  })

  it('(c) a first draft that breaks a passing test is told so, and the repair keeps both green', async () => {
    const run = await runIssue([calc(BASE, ['a + b', 'a ** b']), calc(['a + b', 'a ** b'], FIXED)])
    expect(run.exitCode, run.summary).toBe(0)
    expect(run.requests[1]).toContain(
      'test_calc.CalcTest.test_mul fails after the draft but passes on the base (the draft broke it)'
    )
    expect(run.requests[1]).not.toContain('test_calc.CalcTest.test_add fails')
    expect(proofOf(run)).toMatchObject({ fixed: ['test_calc.CalcTest.test_add'], broken: [] })
  })

  it('(d) an unrelated test failing on the base costs no repair and, with on-preexisting-failure: commit, the fix commits', async () => {
    const fails = await runIssue([calc(BASE, FIXED)], { legacy: true })
    expect(fails.exitCode).toBe(1)
    expect(fails.requests).toHaveLength(1)
    expect(fails.result.error).toMatchObject({ code: 'VALIDATION_FAILED' })
    expect(fails.result.error!.details).toMatchObject({
      stop_reason: 'preexisting',
      preexisting: true
    })
    expect(fails.result.error!.message).toContain('the change fixed test_calc.CalcTest.test_add')

    const kept = await runIssue([calc(BASE, FIXED)], {
      legacy: true,
      inputs: { 'on-preexisting-failure': 'commit' }
    })
    expect(kept.exitCode, kept.summary).toBe(0)
    expect(kept.requests).toHaveLength(1)
    expect(kept.result.data![0]!.verification_passed).toBe(true)
    expect(proofOf(kept)).toEqual({
      command: COMMAND,
      base: 'failed',
      after: 'failed',
      runner: 'unittest',
      fixed: ['test_calc.CalcTest.test_add'],
      broken: [],
      unrelated: ['test_legacy.LegacyTest.test_legacy_export']
    })
  })

  it('(e) a target the model never fixes is repaired until the repairs run out, and nothing suggests committing it', async () => {
    const wrong = ['a * b', 'a - b + 1', 'a - b + 2', 'a - b + 3']
    const drafts = wrong.map((to, i) =>
      calc(i === 0 ? BASE : [wrong[i - 1]!, 'a * b'], [to, 'a * b'])
    )
    const run = await runIssue(drafts, { inputs: { 'on-preexisting-failure': 'commit' } })
    expect(run.exitCode).toBe(1)
    expect(run.requests).toHaveLength(4)
    expect(run.result.metrics).toMatchObject({
      attempts: 4,
      repairs: 3,
      stop_reason: 'repairs-exhausted'
    })
    expect(run.result.error!.message).toContain(
      'the draft did not fix it: still failing: test_calc.CalcTest.test_add'
    )
    expect(run.result.error!.message).not.toContain('on-preexisting-failure')
    expect(run.result.error!.details).toMatchObject({
      preexisting: false,
      targets: ['test_calc.CalcTest.test_add']
    })
    for (const request of run.requests.slice(1))
      expect(request).toContain('The draft did not fix it: still')
  })
})
