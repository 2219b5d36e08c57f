import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../support/action-runner.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import {
  ISSUE,
  PY_CALC,
  PY_FIX,
  pyTest,
  newFile,
  JS_CALC,
  JS_FIX,
  model,
  runOn,
  runReproCli,
  PY_UNITTEST,
  reproductionWorld
} from './reproduction-world.js'

/** Proof by reproduction (issue 35) with Vitest, in a task file and in a plan-less run. */

const cleanups = cleanupAfterEach()
const { setUp } = reproductionWorld(cleanups)

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
      {
        files,
        command: 'npm test',
        plan: [{ path: 'calc.js', operation: 'MODIFY' }],
        // Beside this project's install, on its disk: the suite's temp folder may be another.
        parent: nearInstall()
      },
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

/** A folder on the same disk as node_modules (hard links cannot cross disks), outside it. */
function nearInstall(): string {
  const disk = statSync(join(PROJECT_ROOT, 'node_modules')).dev
  const near = [tmpdir(), '/var/tmp'].find((dir) => statSync(dir).dev === disk)
  return near ?? dirname(PROJECT_ROOT)
}
