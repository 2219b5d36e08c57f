import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, secretFlag } from '../support/action-runner.js'
import { startGitHttpServer } from '../support/git-http-server.js'
import { recoverRepository } from '../../src/run-state/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import {
  BRANCH,
  TOKEN,
  TOTAL,
  CHECK,
  REPLIES,
  thread,
  pullRequest,
  run,
  followUpWorld
} from '../support/follow-up-world.js'

/** How a follow-up round reaches the pull request: a moved origin, a killed push, the command line. */

const cleanups = cleanupAfterEach()
const { pullRequestRepo, servers } = followUpWorld(cleanups)

describe('follow-up on review threads', () => {
  it('when origin moved meanwhile with a conflicting change: GIT_CONFLICT naming the path, never forced, the local branch back at the PR head, the thread left to retry', async () => {
    const { repo } = pullRequestRepo('follow-up-moved')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    const local = repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const pr = pullRequest(github, local, {
      threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
    })
    // Someone else pushes to the branch after GitHub told Patchsmith where it was, changing the
    // line the review asks about (a change that does not touch it is moved onto: see
    // moving-base-follow-up.test.ts).
    const other = `${repo.root}/other`
    execFileSync('git', ['clone', '--quiet', '--branch', BRANCH, repo.origin, other])
    writeFileSync(join(other, 'src/total.js'), TOTAL.replace('item.price', 'item.price + 0'))
    execFileSync('git', [
      '-C',
      other,
      '-c',
      'user.name=o',
      '-c',
      'user.email=o@x',
      'commit',
      '--quiet',
      '-am',
      'theirs'
    ])
    execFileSync('git', ['-C', other, 'push', '--quiet', 'origin', BRANCH])
    const theirs = repo.gitOrigin('rev-parse', BRANCH)
    const action = await run(repo, github, model)
    expect(action.exitCode).toBe(1)
    expect(action.outputs['error-code']).toBe('GIT_CONFLICT')
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(theirs)
    expect(repo.git('rev-parse', BRANCH)).toBe(local)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(pr.threads[0]!.isResolved).toBeFalsy()
    const result = JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as {
      error: { details: { rule: string; paths: string[] } }
    }
    expect(result.error.details).toMatchObject({
      rule: 'base-moved-conflict',
      paths: ['src/total.js']
    })
    expect(pr.threads[0]!.comments.at(-1)!.body).toMatch(
      /follow-up:escalated -->\n.*GIT\\_CONFLICT \(base-moved-conflict\)/
    )
  })

  it('pushes the round while its journal is kept: a run killed in the push is put back by the next', async () => {
    const { repo } = pullRequestRepo('follow-up-journal')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    const head = repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const journal = join(repo.dir, '.git', 'patchsmith', 'journal.json')
    let atPush: string | undefined
    const remote = await startGitHttpServer(repo.origin, {
      writeTokens: [TOKEN],
      onPush: () => {
        atPush = existsSync(journal) ? readFileSync(journal, 'utf8') : undefined
      }
    })
    cleanups.push(() => remote.close())
    repo.git('remote', 'set-url', 'origin', remote.url)
    pullRequest(github, head, {
      threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
    })

    const action = await run(
      repo,
      github,
      model,
      undefined,
      {},
      { GITHUB_SERVER_URL: remote.origin }
    )
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const tip = repo.gitOrigin('rev-parse', BRANCH)
    expect(repo.gitOrigin('rev-parse', `${tip}^`)).toBe(head)
    // While origin received the round's commit, the journal said how to undo it locally.
    expect(atPush, 'no journal while the round was pushed').toBeDefined()
    const { record } = JSON.parse(atPush!) as { record: string }
    expect(JSON.parse(record)).toMatchObject({ base: BRANCH, baseMoved: true, pushing: true })
    expect(existsSync(journal)).toBe(false)

    // Killed right there: the journal as it was makes the next run (here: recover) put the
    // pull request's branch back where GitHub had it; origin's branch is never rewritten.
    writeFileSync(journal, atPush!)
    const recovery = await recoverRepository(repo.dir)
    expect(recovery).toMatchObject({ verified: true, problems: [] })
    expect(repo.git('rev-parse', BRANCH)).toBe(head)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(tip)
    expect(existsSync(journal)).toBe(false)
  })

  it('runs as patchsmith follow-up --pr N on the command line (node dist/cli.js)', async () => {
    const { repo } = pullRequestRepo('follow-up-cli')
    const { github, model } = await servers({ 'src/total.js': REPLIES['src/total.js']! })
    repo.write('check.mjs', `${CHECK.split('\n').slice(0, 3).join('\n')}\n`)
    repo.commitAll('test: check totals')
    repo.git('push', '--quiet', 'origin', BRANCH)
    const pr = pullRequest(github, repo.git('rev-parse', 'HEAD'), {
      threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
    })
    const cli = await runCli(
      [
        '--json',
        'follow-up',
        '--repo',
        repo.dir,
        '--pr',
        '12',
        '--base-url',
        model.url,
        ...secretFlag('--api-key-file', 'sk-test-follow-up-cli'),
        ...secretFlag('--github-token-file', 'ghs_followupclitoken00000000000000000'),
        '--validation-command',
        'node check.mjs'
      ],
      { cwd: repo.root, env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/widgets' } }
    )
    expect(cli.exitCode, cli.stderr).toBe(0)
    const result = JSON.parse(cli.stdout)
    expect(result.success).toBe(true)
    expect(result.follow_up.threads).toEqual([
      expect.objectContaining({ id: 'T1', status: 'fixed' })
    ])
    expect(pr.threads[0]!.isResolved).toBe(true)
    expect(repo.gitOrigin('log', '-1', '--format=%s', BRANCH)).toBe(
      'fix(src): address review on #12'
    )
  })
})
