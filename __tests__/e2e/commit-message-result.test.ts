/**
 * The result's `Commit.message` is the commit's message: what `git log -1 --format=%B` prints,
 * with the trailers git and Patchsmith added (Patchsmith-Run, Signed-off-by, Patchsmith-Commit),
 * for a commit this run made and for one a rerun reuses.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runActionInProcess } from '../support/in-process.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { TYPO_EXAMPLE, TYPO_LINT, TYPO_PLAN, typoReplies, typoRepo } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()
const RUN_URL = 'https://github.com/acme/widgets/actions/runs/5252'

describe("the result's commit message", () => {
  it('is the whole message the commit carries, trailers included, when made and when reused', async () => {
    const work = typoRepo()
    cleanups.push(() => work.cleanup())
    const model = await startModelServer(
      replyByMatch(
        [
          {
            contains: 'Conventional Commit',
            reply: { content: 'docs(readme): correct typo in install' }
          }
        ],
        { content: typoReplies().replies[0]!.reply }
      )
    )
    cleanups.push(() => model.close())
    const options = {
      workspace: work.dir,
      env: { GITHUB_RUN_ID: '5252', GITHUB_SERVER_URL: 'https://github.com' },
      inputs: {
        issue: `${TYPO_EXAMPLE}/issue.json`,
        'fix-plan': TYPO_PLAN,
        'base-url': model.url,
        'api-key': 'sk-test-message-0001',
        'output-path': `${work.root}/result.json`,
        'validation-commands': TYPO_LINT
      }
    }
    const messages: string[] = []
    for (const round of ['made', 'reused']) {
      const run = await runActionInProcess(options)
      expect(run.exitCode, `${round}: ${run.stdout}${run.stderr}`).toBe(0)
      const result = JSON.parse(readFileSync(`${work.root}/result.json`, 'utf8')) as CodeAgentOutput
      const commit = result.data![0]!
      expect(commit.message).toBe(work.gitOrigin('log', '-1', '--format=%B', commit.sha))
      messages.push(commit.message)
      if (round === 'reused') expect(run.stdout).toContain('already holds this change')
      if (round === 'made') work.git('checkout', '-q', 'main')
    }
    expect(messages[0]).toMatch(/^docs\(readme\): correct typo in install\n\nFixes #42\n\n/)
    expect(messages[0]).toContain(`Patchsmith-Run: ${RUN_URL}`)
    expect(messages[0]).toMatch(/\nSigned-off-by: .+ <.+>/)
    expect(messages[0]).toContain('Patchsmith-Commit: validated')
    expect(messages[1]).toBe(messages[0])
  })
})
