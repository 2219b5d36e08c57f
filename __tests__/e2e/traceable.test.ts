/**
 * Every commit names the workflow run that made it (`Patchsmith-Run: <run URL>`), and the result
 * records it; without a run (the command line on a workstation) there is no such trailer.
 */
import { describe, expect, it } from 'vitest'
import { startModelServer } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { runOnPlan } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

async function commitOf(env: Record<string, string>) {
  const repo = createRepo({ files: { 'greet.txt': 'hello\n' }, prefix: 'traceable' })
  cleanups.push(() => repo.cleanup())
  const server = await startModelServer((request) =>
    JSON.stringify(request.body).includes('greet.txt')
      ? '--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n'
      : 'fix(greet): greet the whole world politely'
  )
  cleanups.push(() => server.close())
  const run = await runOnPlan(repo, {
    issue: { number: 3, title: 'Greet the world', body: '' },
    plan: {
      branch_name: 'fix/3-greeting',
      plan_steps: ['Greet the world'],
      file_changes: [{ path: 'greet.txt', operation: 'MODIFY' }],
      validation_commands: ['grep -q world greet.txt']
    },
    env,
    inputs: {
      'base-url': server.url,
      'api-key': 'sk-test-trace',
      'allow-plan-commands': 'true'
    }
  })
  expect(run.exitCode, run.stdout).toBe(0)
  return {
    pushed: repo.gitOrigin('log', '-1', '--format=%B', 'fix/3-greeting'),
    reported: JSON.parse(run.outputs.commits!)[0].message as string,
    summary: run.summary
  }
}

describe('a commit traceable to its run', () => {
  it('carries Patchsmith-Run with the run URL under Actions, in the commit and the result', async () => {
    const url = 'https://github.example/acme/widgets/actions/runs/4242'
    const { pushed, reported } = await commitOf({
      GITHUB_SERVER_URL: 'https://github.example',
      GITHUB_RUN_ID: '4242'
    })
    // One trailer block: the run, the sign-off, Patchsmith's own mark.
    expect(pushed).toMatch(
      new RegExp(
        `\\n\\nPatchsmith-Run: ${url.replace(/[.]/g, '\\.')}\\nSigned-off-by: [^\\n]+\\nPatchsmith-Commit: validated\\n*$`
      )
    )
    expect(reported).toContain(`Patchsmith-Run: ${url}`)
  })

  it('has no run trailer without a workflow run', async () => {
    const { pushed } = await commitOf({})
    expect(pushed).not.toContain('Patchsmith-Run')
    expect(pushed).toContain('Patchsmith-Commit: validated')
  })
})
