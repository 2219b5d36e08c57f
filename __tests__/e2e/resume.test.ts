import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lastAttemptSchema, type LastAttempt } from '../../src/contract/index.js'
import { lastUserMessage } from '../support/model-server.js'
import type { TestRepo } from '../support/repo.js'
import {
  FRUIT_BRANCH,
  fruitRepo,
  fruitReplies,
  isCommitMessageCall,
  runOnFruit,
  swap
} from './fruit.js'
import { expectUntouched } from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

function repo(): TestRepo {
  const made = fruitRepo()
  cleanups.push(() => made.cleanup())
  return made
}

function lastAttemptOf(run: { result: { error?: { details?: Record<string, unknown> } } }) {
  return lastAttemptSchema().parse(run.result.error?.details?.last_attempt)
}

function draftCalls(run: Awaited<ReturnType<typeof runOnFruit>>) {
  return run.server.requests.filter((request) => !isCommitMessageCall(request))
}

function refusePushes(target: TestRepo): () => void {
  const hook = join(target.origin, 'hooks', 'pre-receive')
  writeFileSync(hook, '#!/bin/sh\necho "GH006: Protected branch" >&2\nexit 1\n')
  chmodSync(hook, 0o755)
  return () => rmSync(hook)
}

describe('a stopped run keeps the work it paid for', () => {
  it('keeps the last diff and its failure when repairs run out, and a resumed run repairs from it without drafting again', async () => {
    const work = repo()
    const first = await runOnFruit(
      work,
      fruitReplies([swap('apple', 'banana'), swap('banana', 'cherry')]),
      { 'max-repairs': '1' }
    )
    expect(first.exitCode).toBe(1)
    expect(first.result.error?.code).toBe('VALIDATION_FAILED')
    const kept = lastAttemptOf(first)
    expect(kept).toMatchObject({
      issue_number: 3,
      branch: FRUIT_BRANCH,
      base_sha: first.baseSha,
      attempt: 2,
      files: ['fruit.txt'],
      validated: false
    })
    expect(kept.diff).toContain('-apple\n+cherry')
    expect(kept.validation_results.at(-1)?.stderr).toContain('wrong fruit cherry')
    expect(first.stdout).toContain('kept in the result as error.details.last_attempt')
    expect(first.summary).toContain('### Kept for a rerun')
    expect(first.summary).toContain('+cherry')
    // Never in a commit: the repository is as it was.
    expect(expectUntouched(work, FRUIT_BRANCH, first.baseSha)).toEqual([])

    const second = await runOnFruit(work, fruitReplies([swap('cherry', 'kiwi')]), {
      settings: 'resume: true'
    })
    expect(second.exitCode, second.stdout).toBe(0)
    expect(second.stdout).toContain('Resuming from attempt 2 of the earlier run')
    // One model call for the repair (none to draft again), then the commit message.
    const drafts = draftCalls(second)
    expect(drafts).toHaveLength(1)
    expect(lastUserMessage(drafts[0]!)).toContain('wrong fruit cherry')
    expect(second.result.metrics).toMatchObject({ attempts: 2, repairs: 1 })
    expect(work.gitOrigin('show', `${FRUIT_BRANCH}:fruit.txt`)).toBe('kiwi')
  })

  it('keeps a validated change a refused push stopped, and a resumed run commits it with no draft call', async () => {
    const work = repo()
    const allowPushes = refusePushes(work)
    const first = await runOnFruit(work, fruitReplies([swap('apple', 'kiwi')]))
    expect(first.result.error?.code).toBe('PERMISSION_DENIED')
    const kept = lastAttemptOf(first)
    expect(kept).toMatchObject({ attempt: 1, validated: true })
    expect(kept.validation_results.map((result) => result.exit_code)).toEqual([0])
    expect(expectUntouched(work, FRUIT_BRANCH, first.baseSha)).toEqual([])

    allowPushes()
    const second = await runOnFruit(work, fruitReplies([]), { settings: 'resume: true' })
    expect(second.exitCode, second.stdout).toBe(0)
    expect(draftCalls(second)).toHaveLength(0)
    expect(work.gitOrigin('show', `${FRUIT_BRANCH}:fruit.txt`)).toBe('kiwi')
  })

  it('drafts anew when the kept diff no longer lands on a base that moved', async () => {
    const work = repo()
    const first = await runOnFruit(work, fruitReplies([swap('apple', 'banana')]), {
      'max-repairs': '0'
    })
    expect(lastAttemptOf(first).diff).toContain('-apple')
    writeFileSync(join(work.dir, 'fruit.txt'), 'plum\n')
    work.git('commit', '-qam', 'the fruit changed upstream')
    work.git('push', '-q', 'origin', 'main')
    const second = await runOnFruit(work, fruitReplies([swap('plum', 'kiwi')]), {
      settings: 'resume: true'
    })
    expect(second.exitCode, second.stdout).toBe(0)
    expect(second.stdout).toContain('does not apply to the base any more')
    expect(draftCalls(second)).toHaveLength(1)
  })

  it('keeps nothing when the run was refused for what its change did', async () => {
    const work = repo()
    // Outside the sandbox .git is writable, so the watch is what catches the new ref.
    const run = await runOnFruit(work, fruitReplies([swap('apple', 'kiwi')]), {
      sandbox: 'off',
      'validation-commands': 'git update-ref refs/heads/sneaky HEAD'
    })
    expect(run.result.error?.details).toMatchObject({ rule: 'repo-tampered' })
    expect(run.result.error?.code).toBe('SECURITY_VIOLATION')
    expect(run.result.error?.details?.last_attempt).toBeUndefined()
  })
})

describe('resume refuses what it cannot trust, before any model call', () => {
  async function resumeFrom(result: unknown) {
    const work = repo()
    const path = join(work.root, 'earlier.json')
    if (result !== undefined) writeFileSync(path, JSON.stringify(result))
    const run = await runOnFruit(work, fruitReplies([swap('apple', 'kiwi')]), {
      settings: `resume: ${path}`
    })
    return { work, run }
  }
  const keptFor = (attempt: Partial<LastAttempt>, baseSha: string) => ({
    success: false,
    error: {
      code: 'VALIDATION_FAILED',
      message: 'Validation failed.',
      recoverable: false,
      details: {
        last_attempt: {
          issue_number: 3,
          branch: FRUIT_BRANCH,
          base_sha: baseSha,
          attempt: 1,
          files: ['fruit.txt'],
          diff: swap('apple', 'banana'),
          validated: false,
          validation_results: [],
          ...attempt
        }
      }
    }
  })

  it.each([
    ['no earlier result', undefined, 'no-result'],
    ['a result that kept nothing', { success: true, data: [] }, 'nothing-to-resume'],
    ['not a result', { hello: 'world' }, 'not-a-result'],
    ['an attempt for another issue', keptFor({ issue_number: 4 }, 'a'.repeat(40)), 'other-run']
  ])('%s is INVALID_INPUT', async (_name, result, rule) => {
    const { work, run } = await resumeFrom(result)
    expect(run.result.error?.code).toBe('INVALID_INPUT')
    expect(run.result.error?.details).toMatchObject({ field: 'resume', rule })
    expect(run.server.requests).toHaveLength(0)
    expect(expectUntouched(work, FRUIT_BRANCH, run.baseSha)).toEqual([])
  })

  it('refuses a kept diff that reaches past the plan as SECURITY_VIOLATION, with nothing written', async () => {
    const hostile =
      'diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml\n' +
      'new file mode 100644\n--- /dev/null\n+++ b/.github/workflows/ci.yml\n@@ -0,0 +1 @@\n+on: push\n'
    const { work, run } = await resumeFrom(keptFor({ diff: hostile }, 'a'.repeat(40)))
    expect(run.result.error?.code).toBe('SECURITY_VIOLATION')
    expect(run.server.requests).toHaveLength(0)
    expect(expectUntouched(work, FRUIT_BRANCH, run.baseSha)).toEqual([])
    expect(readFileSync(join(work.dir, 'fruit.txt'), 'utf8')).toBe('apple\n')
  })
})
