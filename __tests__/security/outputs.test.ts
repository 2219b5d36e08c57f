import { describe, expect, it } from 'vitest'
import { runAction } from '../support/action-runner.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { TYPO_EXAMPLE, TYPO_LINT, TYPO_PLAN, typoReplies, typoRepo } from '../e2e/scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

describe('T55: Commit[] output integrity', () => {
  it('keeps a commit message holding a delimiter-like word, quotes and brackets intact in the commits output', async () => {
    const subject = 'docs(readme): fix "] ghadelimiter_x <<EOF in the install notes'
    const repo = typoRepo()
    cleanups.push(() => repo.cleanup())
    const [draft] = typoReplies().replies
    const model = await startModelServer(
      replyByMatch([{ contains: 'Conventional Commit', reply: subject }], draft!.reply)
    )
    cleanups.push(() => model.close())
    const run = await runAction({
      workspace: repo.dir,
      inputs: {
        issue: `${TYPO_EXAMPLE}/issue.json`,
        'fix-plan': TYPO_PLAN,
        'base-url': model.url,
        'api-key': 'sk-test-outputs',
        'validation-commands': TYPO_LINT
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    const commits = JSON.parse(run.outputs.commits!) as Array<{ message: string; sha: string }>
    expect(commits).toHaveLength(1)
    // The commit's whole message: the subject, Fixes #42, then git's and Patchsmith's trailers.
    expect(commits[0]!.message).toBe(repo.gitOrigin('log', '-1', '--format=%B', run.outputs.sha!))
    expect(commits[0]!.message.startsWith(`${subject}\n\nFixes #42\n\n`)).toBe(true)
    expect(commits[0]!.sha).toBe(run.outputs.sha)
    expect(repo.gitOrigin('log', '-1', '--format=%s', 'docs/42-fix-typo-readme')).toBe(subject)
  })
})
