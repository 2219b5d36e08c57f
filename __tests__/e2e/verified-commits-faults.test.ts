/**
 * commit-signing: github when GitHub falters: a 5xx of the Git Data API is GITHUB_API_ERROR,
 * recoverable; an answer lost after GitHub made the branch (a 502, or none before the client's
 * time-out) is resolved by reading the ref back.
 * In-process (src/main.ts's run()) against the loopback GitHub API on the test's bare origin.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runActionInProcess } from '../support/in-process.js'
import type { GitDataState } from '../support/github-git-data.js'
import { startGitHubServer } from '../support/github-server.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { expectUntouched, writeInputs } from './scenario.js'

const cleanups = cleanupAfterEach()
const BRANCH = 'fix/3-greeting'

async function signedRun(
  prefix: string,
  arrange: (state: GitDataState) => void,
  env: Record<string, string> = {}
) {
  const repo = createRepo({ files: { 'greet.txt': 'hello\n' }, prefix })
  cleanups.push(() => repo.cleanup())
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  const gitData = github.gitData(repo.origin)
  arrange(gitData)
  const model = await startModelServer((request) =>
    /Write a unified diff for greet\.txt/.test(JSON.stringify(request.body))
      ? '--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n'
      : 'fix(greet): greet the whole world'
  )
  cleanups.push(() => model.close())
  const base = repo.git('rev-parse', 'HEAD')
  const files = writeInputs(repo, {
    'issue.json': { number: 3, title: 'Greet the world', body: '' },
    'plan.json': {
      branch_name: BRANCH,
      plan_steps: ['Greet the world'],
      file_changes: [{ path: 'greet.txt', operation: 'MODIFY' }],
      validation_commands: []
    }
  })
  const action = await runActionInProcess({
    workspace: repo.dir,
    env: { GITHUB_API_URL: github.url, ...env },
    inputs: {
      issue: files['issue.json']!,
      'fix-plan': files['plan.json']!,
      'base-url': model.url,
      'api-key': 'sk-test-signing',
      'github-token': 'ghs_signingtoken0000000000000000000000',
      'output-path': `${repo.root}/result.json`,
      settings: 'commit-signing: github\ncomment-on-failure: false'
    }
  })
  const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as {
    success: boolean
    error?: { code: string; message: string; recoverable: boolean }
  }
  return { repo, gitData, action, result, base }
}

describe('commit-signing: github when GitHub falters', () => {
  it('a 5xx of the Git Data API after the retries is GITHUB_API_ERROR, recoverable; nothing on origin', async () => {
    const w = await signedRun('signing-5xx', (state) => {
      state.failing = { status: 503, times: 10 }
    })
    expect(w.result.success).toBe(false)
    expect(w.result.error).toMatchObject({ code: 'GITHUB_API_ERROR', recoverable: true })
    expect(w.result.error!.message).toContain('commit-signing: github could not make the tree')
    expect(w.result.error!.message).not.toContain('is the base commit on GitHub?')
    expect(expectUntouched(w.repo, BRANCH, w.base)).toEqual([])
  })

  it.each([
    ['every answer to the ref request is lost (502)', 3, 'status 502'],
    [
      'the first answer is lost and the retry meets "already exists"',
      1,
      'the retry found it already made'
    ]
  ])(
    'GitHub made the branch but %s: the ref read back holds our commit, the run succeeds',
    async (_what, lost, how) => {
      const w = await signedRun(`signing-lost-${lost}`, (state) => {
        state.loseRefAnswers = lost
      })
      expect(w.result, w.action.stdout).toMatchObject({ success: true })
      const tip = w.repo.gitOrigin('rev-parse', BRANCH)
      expect(w.gitData.verified.has(tip)).toBe(true)
      expect(w.action.outputs.sha).toBe(tip)
      expect(w.action.stdout).toContain(`was lost (${how}), but origin holds ${tip}: going on`)
    }
  )

  it('GitHub made the branch but answered after the client gave up waiting: the ref read back decides', async () => {
    // Held until the client's time-out ends the request: no sleep, no race with a timer here.
    // The limit holds for every Git Data request, the tree and the commit too (each made by a
    // few git processes in this worker): 5 s, not 1, leaves them room on a loaded machine.
    const w = await signedRun(
      'signing-timeout',
      (state) => {
        state.holdRefAnswers = 1
      },
      { PATCHSMITH_GIT_DATA_TIMEOUT_SECONDS: '5' }
    )
    expect(w.gitData.givenUp).toBe(1)
    expect(w.result, w.action.stdout).toMatchObject({ success: true })
    const tip = w.repo.gitOrigin('rev-parse', BRANCH)
    expect(w.gitData.verified.has(tip)).toBe(true)
    expect(w.action.outputs.sha).toBe(tip)
    expect(w.action.stdout).toContain(
      `ref request for "${BRANCH}" was lost (no answer within 5 s), but origin holds ${tip}: going on`
    )
  })
})
