import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runAction } from '../support/action-runner.js'
import { startGitHubServer, type GitHubServer } from '../support/github-server.js'
import { startModelServer, type ModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { BRANCH, FIRST, TOTAL, pullRequest, thread } from '../support/follow-up-world.js'

/**
 * A follow-up round whose pull-request branch moved on origin while it ran (a colleague, or a
 * concurrent round, pushed to it): through node dist/index.js against loopback GitHub.
 */

const cleanups = cleanupAfterEach()
const CHECK =
  "import { total } from './src/total.js'\nif (total([{ price: 2, quantity: 3 }]) !== 6) throw new Error('total ignores quantity')\n"
const DIFF =
  '--- a/src/total.js\n+++ b/src/total.js\n@@ -3,3 +3,3 @@\n   for (const item of items) {\n-    sum += item.price\n+    sum += item.price * item.quantity\n   }\n'

function pullRequestRepo(): { repo: TestRepo; head: string } {
  const repo = createRepo({
    files: { 'src/total.js': TOTAL, 'check.mjs': CHECK, 'package.json': '{"type":"module"}\n' },
    prefix: 'moving-pr'
  })
  cleanups.push(() => repo.cleanup())
  repo.git('checkout', '--quiet', '-b', BRANCH)
  repo.write('README.md', 'Totals.\n')
  const head = repo.commitAll(FIRST)
  repo.git('push', '--quiet', 'origin', BRANCH)
  return { repo, head }
}

/** A colleague's commit on origin's pull-request branch; returns its SHA. */
function pushToPullRequest(repo: TestRepo, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-colleague-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
  git('clone', '-q', '--branch', BRANCH, repo.origin, '.')
  git('config', 'user.name', 'Colleague')
  git('config', 'user.email', 'colleague@example.invalid')
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content)
  git('add', '--all')
  git('commit', '-q', '-m', 'docs: a colleague pushed meanwhile')
  git('push', '-q', 'origin', BRANCH)
  return git('rev-parse', 'HEAD')
}

/** Loopback GitHub with the pull request and one thread, and a model that pushes at commit time. */
async function servers(
  head: string,
  during: () => void
): Promise<{ github: GitHubServer; model: ModelServer }> {
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  let pushed = false
  const model = await startModelServer((request) => {
    const text = JSON.stringify(request.body?.messages ?? [])
    if (/Write a unified diff for src\/total\.js /.test(text)) return DIFF
    // The commit message is asked for after validation, before the push.
    if (!pushed) {
      pushed = true
      during()
    }
    return 'fix(src): address the review'
  })
  cleanups.push(() => model.close())
  pullRequest(github, head, {
    threads: [thread('T1', 'src/total.js', 4, 'Multiply by the quantity.')]
  })
  return { github, model }
}

const run = (repo: TestRepo, github: GitHubServer, model: ModelServer) =>
  runAction({
    workspace: repo.dir,
    env: { GITHUB_API_URL: github.url },
    inputs: {
      'follow-up': '12',
      'base-url': model.url,
      'api-key': 'sk-test-follow-up',
      'github-token': 'ghs_followuptoken000000000000000000000',
      'validation-commands': 'node check.mjs',
      'output-path': `${repo.root}/result.json`
    }
  })

const resultOf = (repo: TestRepo) => JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8'))

describe('a follow-up whose pull-request branch moved on origin during the round', () => {
  it('puts its commit on top of the new commits, validates again and pushes, never forced', async () => {
    const { repo, head } = pullRequestRepo()
    let theirs = ''
    const { github, model } = await servers(head, () => {
      theirs = pushToPullRequest(repo, { 'NOTES.md': 'Pushed during the round.\n' })
    })
    const action = await run(repo, github, model)
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const tip = repo.gitOrigin('rev-parse', BRANCH)
    expect(repo.gitOrigin('rev-parse', `${tip}^`)).toBe(theirs)
    expect(repo.gitOrigin('rev-parse', `${tip}^^`)).toBe(head)
    expect(repo.gitOrigin('show', `${tip}:src/total.js`)).toContain('item.price * item.quantity')
    expect(repo.gitOrigin('show', `${tip}:NOTES.md`)).toContain('Pushed during the round')
    expect(action.outputs).toMatchObject({ branch: BRANCH, sha: tip, pushed: 'true' })
    const result = resultOf(repo)
    expect(result.data[0]).toMatchObject({ sha: tip, base_sha: theirs, moved_from_base: head })
    expect(result.follow_up.threads[0]).toMatchObject({ id: 'T1', status: 'fixed', commit: tip })
    expect(action.stdout).toMatch(/moved during the run .*validating it again/)
  })

  it('refuses a commit that conflicts with the new ones as GIT_CONFLICT, pushing nothing', async () => {
    const { repo, head } = pullRequestRepo()
    let theirs = ''
    const { github, model } = await servers(head, () => {
      theirs = pushToPullRequest(repo, {
        'src/total.js': TOTAL.replace('sum += item.price', 'sum += item.price * 1')
      })
    })
    const action = await run(repo, github, model)
    expect(action.exitCode).toBe(1)
    expect(action.outputs['error-code']).toBe('GIT_CONFLICT')
    const result = resultOf(repo)
    expect(result.error.details).toMatchObject({
      rule: 'base-moved-conflict',
      paths: ['src/total.js']
    })
    // Origin keeps the colleague's commit; the local branch is back at the round's start.
    expect(repo.gitOrigin('rev-parse', BRANCH)).toBe(theirs)
    expect(repo.git('rev-parse', BRANCH)).toBe(head)
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})
