import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runCli } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { skipWithout } from '../support/sandbox-needs.js'
import { isCommitMessageCall } from './fruit.js'
import { writeInputs } from './scenario.js'

/*
 * The walk-through on pallets/click: with a validation command that names a test file
 * (`pytest tests/test_utils.py`), the reproduction went to tests/test_issue_7.py, which that
 * command never runs, and the run said "the output names no failing assertion of the new test".
 */

const cleanups = cleanupAfterEach()
const BRANCH = 'fix/7-add'
const CALC = 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n'
const FIX = `--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n`
const REPRODUCTION = `--- /dev/null\n+++ b/tests/test_issue_7.py\n@@ -0,0 +1,5 @@\n+from calc import add\n+\n+\n+def test_add_two_numbers():\n+    assert add(2, 3) == 5\n`

describe('the reproduction runs in a command that runs it (node dist/cli.js)', () => {
  it.skipIf(skipWithout('pytest'))(
    'a pytest command naming a test file runs the new test too: reproduced, then fixed',
    async () => {
      const repo = createRepo({
        files: {
          'calc.py': CALC,
          'tests/test_calc.py':
            'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n',
          'tests/test_other.py': 'def test_other():\n    assert True\n'
        },
        prefix: 'repro-command'
      })
      cleanups.push(() => repo.cleanup())
      const server = await startModelServer((request) =>
        isCommitMessageCall(request)
          ? 'fix(calc): add returns the sum of its operands'
          : JSON.stringify(request.body.messages).includes(
                'Before the fix is drafted, write the test'
              )
            ? REPRODUCTION
            : FIX
      )
      cleanups.push(() => server.close())
      const command = 'python3 -m pytest -q -p no:cacheprovider tests/test_calc.py'
      const paths = writeInputs(repo, {
        'issue.json': { number: 7, title: 'add gives the wrong sum', body: 'add(2, 3) gives -1.' },
        'plan.json': {
          branch_name: BRANCH,
          plan_steps: ['Make add return the sum'],
          file_changes: [{ path: 'calc.py', operation: 'MODIFY' }],
          validation_commands: []
        }
      })
      const output = `${repo.root}/result.json`
      const cli = await runCli(
        [
          'run',
          ...['--repo', repo.dir, '--issue', paths['issue.json']!, '--plan', paths['plan.json']!],
          ...['--base-url', server.url, '--validation-command', command, '--output', output],
          '--no-push'
        ],
        { env: { OPENAI_API_KEY: 'sk-test-repro' } }
      )
      expect(cli.exitCode, cli.stderr).toBe(0)
      const ranBy = `${command} tests/test_issue_7.py`
      expect(cli.stderr).toContain(`(tests/test_issue_7.py, run by \`${ranBy}\`)`)
      const commit = (JSON.parse(readFileSync(output, 'utf8')) as CodeAgentOutput).data![0]!
      expect(commit.verification).toMatchObject({
        status: 'reproduced-and-fixed',
        tests: [
          { id: 'tests/test_issue_7.py::test_add_two_numbers', base: 'failed', after: 'passed' }
        ],
        reproduction: { path: 'tests/test_issue_7.py', command: ranBy, committed: true }
      })
      expect(commit.proof?.map((proof) => [proof.command, proof.base, proof.after])).toEqual([
        [ranBy, 'failed', 'passed']
      ])
      expect(repo.git('show', `${BRANCH}:tests/test_issue_7.py`)).toContain('assert add(2, 3) == 5')
    }
  )
})
