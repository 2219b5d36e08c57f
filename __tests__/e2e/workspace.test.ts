import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runActionInProcess } from '../support/in-process.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import { TYPO_LINT, TYPO_PLAN, typoReplies, typoRepo, writeInputs } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

describe('workspace layout', () => {
  it('changes the repository named by `repo` and reads artifact paths relative to the workspace', async () => {
    const repo = typoRepo()
    cleanups.push(() => repo.cleanup())
    const server = await startModelServer(replyByMatch(typoReplies().replies))
    cleanups.push(() => server.close())
    writeInputs(repo, {
      'fix-plan.json': readFileSync(TYPO_PLAN, 'utf8'),
      'issue.yml': 'number: 42\ntitle: Fix typo in README\nbody: |\n  Line 15: teh should be the\n'
    })
    const run = await runActionInProcess({
      workspace: repo.root, // the work tree is the `work` folder inside it
      inputs: {
        repo: 'work',
        issue: 'artifact/issue.yml',
        'fix-plan': 'artifact/fix-plan.json',
        'base-url': server.url,
        'api-key': 'k-workspace',
        'validation-commands': TYPO_LINT,
        'output-path': 'out/result.json',
        push: 'false'
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.outputs['output-path']).toBe(`${repo.root}/out/result.json`)
    expect(existsSync(`${repo.root}/out/result.json`)).toBe(true)
    expect(repo.git('log', '-1', '--format=%s', 'docs/42-fix-typo-readme')).toMatch(
      /^docs\(readme\): /
    )
    expect(repo.gitOrigin('branch', '--list', 'docs/42-fix-typo-readme')).toBe('')
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})
