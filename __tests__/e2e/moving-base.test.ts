import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import type { ActionRun } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import { replyByMatch, startModelServer } from '../support/model-server.js'
import type { TestRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import {
  expectUntouched,
  TYPO_EXAMPLE,
  TYPO_LINT,
  TYPO_PLAN,
  typoReplies,
  typoRepo
} from './scenario.js'

/**
 * A base that moves during the run: someone pushes to origin's main after the change was
 * validated (here: when the commit message is asked for), before the push.
 */

const cleanups = cleanupAfterEach()
const BRANCH = 'docs/42-fix-typo-readme'
const COMMIT_PROMPT = 'subject line of a Conventional Commit'

/** Commits `files` on origin's main from another clone, as a colleague's push would. */
function pushToOriginMain(repo: TestRepo, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-colleague-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
  git('clone', '-q', repo.origin, '.')
  git('config', 'user.name', 'Colleague')
  git('config', 'user.email', 'colleague@example.invalid')
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content)
  git('add', '--all')
  git('commit', '-q', '-m', 'docs: a colleague pushed meanwhile')
  git('push', '-q', 'origin', 'main')
  return git('rev-parse', 'HEAD')
}

/** The typo run, with `during` pushing to origin once the change was validated. */
async function runWithPush(
  repo: TestRepo,
  during: () => void,
  validation = TYPO_LINT
): Promise<ActionRun & { result: CodeAgentOutput }> {
  let pushed = false
  const replies = replyByMatch(typoReplies().replies)
  const server = await startModelServer((request) => {
    if (!pushed && JSON.stringify(request.body).includes(COMMIT_PROMPT)) {
      pushed = true
      during()
    }
    return replies(request)
  })
  cleanups.push(() => server.close())
  const output = join(repo.root, `result-${randomUUID()}.json`)
  const run = await runActionInProcess({
    workspace: repo.dir,
    inputs: {
      issue: `${TYPO_EXAMPLE}/issue.json`,
      'fix-plan': TYPO_PLAN,
      'triage-result': `${TYPO_EXAMPLE}/triage-result.json`,
      'base-url': server.url,
      'api-key': 'sk-test-moving-base',
      model: typoReplies().model,
      'validation-commands': validation,
      'output-path': output,
      push: 'true'
    }
  })
  expect(pushed, run.stdout).toBe(true)
  return { ...run, result: JSON.parse(readFileSync(output, 'utf8')) as CodeAgentOutput }
}

function track(repo: TestRepo): TestRepo {
  cleanups.push(() => repo.cleanup())
  return repo
}

describe('a base that moved on origin during the run', () => {
  it('moves the approved change onto it, validates it again and pushes both', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const readme = repo.read('README.md')
    let theirs = ''
    const run = await runWithPush(repo, () => {
      theirs = pushToOriginMain(repo, {
        'README.md': readme.replace('MIT', 'MIT License'),
        'NOTES.md': 'Pushed while Patchsmith ran.\n'
      })
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.outputs).toMatchObject({ success: 'true', pushed: 'true', branch: BRANCH })
    const tip = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    // One commit, right on top of what the colleague pushed: both changes are on the branch.
    expect(repo.gitOrigin('rev-parse', `${tip}^`)).toBe(theirs)
    const pushed = repo.gitOrigin('show', `${tip}:README.md`)
    expect(pushed).toContain('Run the following command:')
    expect(pushed).toContain('MIT License')
    expect(repo.gitOrigin('show', `${tip}:NOTES.md`)).toContain('Pushed while')
    // The commit changes exactly the approved line on the new base.
    expect(repo.gitOrigin('diff', '--stat', theirs, tip)).toMatch(/README\.md \| 2 \+-/)
    const commit = run.result.data![0]!
    expect(commit).toMatchObject({ sha: tip, base_sha: theirs, moved_from_base: base })
    expect(run.outputs.sha).toBe(tip)
    // Validated again on the new base: its results are the moved change's.
    expect(commit.validation_results.map((r) => [r.command, r.exit_code])).toEqual([[TYPO_LINT, 0]])
    expect(run.stdout).toMatch(/moved during the run .*validating it again/)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('rev-parse', 'main')).toBe(base)
  })

  it('puts the tree back after validating the moved change: an ignored file it wrote is gone and named', async () => {
    const repo = track(typoRepo())
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'left.log\n')
    // Written only on the new base (NOTES.md came with the colleague's push).
    const validation = `${TYPO_LINT}\nif [ -e NOTES.md ]; then echo left > left.log; fi`
    const run = await runWithPush(
      repo,
      () => void pushToOriginMain(repo, { 'NOTES.md': 'Pushed while Patchsmith ran.\n' }),
      validation
    )
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.result.data![0]!.moved_from_base).toBe(repo.git('rev-parse', 'main'))
    expect(existsSync(join(repo.dir, 'left.log'))).toBe(false)
    expect(run.result.metrics?.removed_after_validation).toEqual({ count: 1, paths: ['left.log'] })
  })

  it('refuses a real conflict as GIT_CONFLICT naming its paths, pushes nothing, rolls back', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const readme = repo.read('README.md')
    const run = await runWithPush(repo, () => {
      pushToOriginMain(repo, {
        'README.md': readme.replace('Run teh following', 'Run teh next')
      })
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('GIT_CONFLICT')
    const error = run.result.error!
    expect(error.message).toMatch(
      /conflicts with what was pushed to main during the run.*README\.md/
    )
    expect(error.details).toMatchObject({ rule: 'base-moved-conflict', paths: ['README.md'] })
    expect(expectUntouched(repo, BRANCH, base)).toEqual([])
  })

  it('reports a change that fails validation on the new base as VALIDATION_FAILED, pushing nothing', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const run = await runWithPush(repo, () => {
      pushToOriginMain(repo, { 'CHANGES.md': 'Fixed adn improved.\n' })
    })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('VALIDATION_FAILED')
    const error = run.result.error!
    expect(error.message).toMatch(/Validation failed on the change moved onto main/)
    expect(error.details).toMatchObject({ rebased: true, command: TYPO_LINT, exit_code: 1 })
    expect(String(error.details!.stderr)).toContain("CHANGES.md:1: 'adn'")
    expect(expectUntouched(repo, BRANCH, base)).toEqual([])
  })
})
