import { describe, expect, it } from 'vitest'
import { runActionInProcess } from '../support/in-process.js'
import { lastUserMessage, startModelServer, type RecordedRequest } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

/**
 * An ordinary 683-line Python module (about 7 000 tokens, more than the default 5 000 a draft
 * may use): documented helpers, with `send_file_max_age` two thirds of the way down.
 */
function appModule(): { text: string; at: number } {
  const lines = ['import os', 'import typing as t', '']
  const helper = (i: number) => [
    `def helper_{i}(value: int) -> int:`.replace('{i}', String(i)),
    `    """Return the value shifted by ${i}, as the request pipeline step ${i} expects."""`,
    `    return value + ${i}`,
    '',
    ''
  ]
  for (let i = 0; lines.length < 450; i++) lines.push(...helper(i))
  const at = lines.length + 1
  lines.push(
    'def send_file_max_age(filename: t.Optional[str]) -> t.Optional[int]:',
    '    """The max age of a sent file, in seconds; None means the browser decides."""',
    '    value = os.environ.get("SEND_FILE_MAX_AGE_DEFAULT")',
    '    if value is None:',
    '        return 0',
    '    return int(value)',
    '',
    ''
  )
  for (let i = 1_000; lines.length < 683; i++) lines.push(...helper(i))
  return { text: lines.slice(0, 683).join('\n') + '\n', at }
}

describe('a given plan without a line_range on a large file', () => {
  it('windows the file around what the issue names, as a plan-less run would, and lands the edit', async () => {
    const { text, at } = appModule()
    expect(text.split('\n')).toHaveLength(684)
    const repo = createRepo({ prefix: 'planful-big', files: { 'src/app.py': text } })
    cleanups.push(() => repo.cleanup())
    const fixed = at + 4
    const diff =
      `--- a/src/app.py\n+++ b/src/app.py\n@@ -${fixed - 1},3 +${fixed - 1},3 @@\n` +
      '     if value is None:\n' +
      '-        return 0\n' +
      '+        return None\n' +
      '     return int(value)\n'
    const drafts: string[] = []
    const server = await startModelServer((request: RecordedRequest) => {
      const user = lastUserMessage(request)
      if (user.includes('Write a unified diff for src/app.py')) {
        drafts.push(user)
        return user.includes(`${fixed} |         return 0`) && !user.includes('def helper_1(')
          ? diff
          : 'I cannot see the code.'
      }
      return 'fix(app): let the browser decide when no max age is set'
    })
    cleanups.push(() => server.close())
    const inputs = writeInputs(repo, {
      'issue.json': {
        number: 12,
        title: 'send_file_max_age returns 0 instead of None',
        body: 'Without SEND_FILE_MAX_AGE_DEFAULT, `send_file_max_age()` should return None.'
      },
      'fix-plan.json': {
        branch_name: 'fix/12-send-file-max-age',
        plan_steps: ['Return None when the variable is unset'],
        file_changes: [
          { path: 'src/app.py', operation: 'MODIFY', description: 'Return None, not 0' }
        ],
        validation_commands: []
      }
    })
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: inputs['issue.json']!,
        'fix-plan': inputs['fix-plan.json']!,
        'base-url': server.url,
        'api-key': 'sk-test-planful-big'
      }
    })
    expect(run.exitCode, run.stderr + run.stdout).toBe(0)
    expect(run.stdout).not.toContain('TOKEN_BUDGET_EXCEEDED')
    expect(drafts).toHaveLength(1)
    expect(drafts[0]).toMatch(/src\/app\.py has 683 lines; only lines \d+-\d+ are shown/)
    const sha = run.outputs.sha!
    const after = repo.gitOrigin('show', `${sha}:src/app.py`).split('\n')
    expect(after[fixed - 1]).toBe('        return None')
  })
})
