/**
 * commit-signing: github through node dist/index.js against the loopback GitHub API, whose Git
 * Data endpoints write the test's bare origin with real git plumbing and sign what they make.
 * The first case's signed run goes through the bundle; the others run in-process (src/main.ts's
 * run()), sparing a Node start and the bundle's load each.
 */
import { chmodSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pushError } from '../../src/git/index.js'
import { runAction } from '../support/action-runner.js'
import { runActionInProcess } from '../support/in-process.js'
import {
  requireSignedCommits,
  startGitHubServer,
  type GitHubServer
} from '../support/github-server.js'
import { startModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { expectUntouched, writeInputs } from './scenario.js'

const cleanups = cleanupAfterEach()

const BRANCH = 'fix/3-greeting'
const TOKEN = 'ghs_signingtoken0000000000000000000000'
const FILES = { 'greet.txt': 'hello\n', 'run.sh': '#!/bin/sh\necho hi\n', 'old.txt': 'bye\n' }
const REPLIES: Record<string, string> = {
  'greet.txt': '--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n',
  'run.sh': '--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo hi\n+echo hello\n'
}

async function world(prefix: string) {
  const repo = createRepo({ files: FILES, prefix })
  cleanups.push(() => repo.cleanup())
  chmodSync(join(repo.dir, 'run.sh'), 0o755)
  repo.commitAll('executable')
  repo.git('push', '--quiet', 'origin', 'main')
  const github = await startGitHubServer()
  cleanups.push(() => github.close())
  const gitData = github.gitData(repo.origin)
  const model = await startModelServer((request) => {
    const asked = /Write a unified diff for (\S+) /.exec(JSON.stringify(request.body))?.[1]
    if (asked) return REPLIES[asked] ?? 'NO_CHANGES'
    return 'fix(greet): greet the whole world politely'
  })
  cleanups.push(() => model.close())
  return { repo, github, gitData, model }
}

function run(
  w: { repo: TestRepo; github: GitHubServer; model: { url: string } },
  settings = '',
  runner = runActionInProcess
) {
  const files = writeInputs(w.repo, {
    'issue.json': { number: 3, title: 'Greet the world', body: '' },
    'plan.json': {
      branch_name: BRANCH,
      plan_steps: ['Greet the world'],
      file_changes: [
        { path: 'greet.txt', operation: 'MODIFY' },
        { path: 'run.sh', operation: 'MODIFY' },
        { path: 'old.txt', operation: 'DELETE' }
      ],
      validation_commands: ['grep -q world greet.txt']
    }
  })
  return runner({
    workspace: w.repo.dir,
    env: { GITHUB_API_URL: w.github.url },
    inputs: {
      issue: files['issue.json']!,
      'fix-plan': files['plan.json']!,
      'base-url': w.model.url,
      'api-key': 'sk-test-signing',
      'allow-plan-commands': 'true',
      'github-token': TOKEN,
      'output-path': `${w.repo.root}/result.json`,
      settings
    }
  })
}

const gitRequests = (github: GitHubServer) =>
  github.requests.filter((request) => request.path.includes('/git/'))
const resultOf = (repo: TestRepo) =>
  JSON.parse(readFileSync(`${repo.root}/result.json`, 'utf8')) as {
    success: boolean
    error?: { code: string; message: string; details?: { rule?: string } }
  }

describe('verified commits (commit-signing: github)', () => {
  it('makes the same tree and message as local git, signed, and the branch and result point at it', async () => {
    const local = await world('signing-local')
    const plain = await run(local)
    expect(plain.exitCode, plain.stdout).toBe(0)
    // Off: not one Git Data request.
    expect(gitRequests(local.github)).toEqual([])
    const plainTip = local.repo.gitOrigin('rev-parse', BRANCH)

    const w = await world('signing-api')
    const base = w.repo.git('rev-parse', 'HEAD')
    const action = await run(w, 'commit-signing: github', runAction)
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const tip = w.repo.gitOrigin('rev-parse', BRANCH)
    expect(w.gitData.verified.has(tip)).toBe(true)
    expect(w.repo.gitOrigin('rev-parse', `${tip}^{tree}`)).toBe(
      local.repo.gitOrigin('rev-parse', `${plainTip}^{tree}`)
    )
    expect(w.repo.gitOrigin('cat-file', '-p', `${tip}^{tree}`)).toMatch(/100755 blob \S+\trun\.sh/)
    const message = (repo: TestRepo, sha: string) =>
      repo.gitOrigin('cat-file', 'commit', sha).split('\n\n').slice(1).join('\n\n')
    expect(message(w.repo, tip)).toBe(message(local.repo, plainTip))
    expect(w.repo.gitOrigin('rev-parse', `${tip}^`)).toBe(base)
    expect(w.repo.gitOrigin('log', '-1', '--format=%an', tip)).toBe('github-actions[bot]')
    // The local branch and the result point at the verified commit.
    expect(w.repo.git('rev-parse', BRANCH)).toBe(tip)
    expect(action.outputs.sha).toBe(tip)
    expect(JSON.parse(action.outputs.commits!)[0].sha).toBe(tip)
    expect(action.outputs.pushed).toBe('true')
    // One tree, one commit, one ref: three requests for the commit.
    expect(gitRequests(w.github).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/widgets/git/trees',
      'POST /repos/acme/widgets/git/commits',
      'POST /repos/acme/widgets/git/refs'
    ])
    expect(gitRequests(w.github)[0]!.headers.authorization).toBe(`token ${TOKEN}`)
    const logged = (action.stdout + action.stderr).replace(/^::add-mask::.*$/gm, '')
    expect(logged).not.toContain(TOKEN)
    expect(action.stdout).toContain(`Made ${tip} through the GitHub API (Verified)`)
  })

  it('with a ruleset that requires signed commits: local git is refused naming the setting, the API commit goes through', async () => {
    const w = await world('signing-ruleset')
    requireSignedCommits(w.repo.origin)
    const base = w.repo.git('rev-parse', 'HEAD')
    const refused = await run(w)
    expect(refused.exitCode).not.toBe(0)
    const error = resultOf(w.repo).error!
    expect(error.details?.rule).toBe('unsigned-commits-refused')
    expect(error.message).toContain('commit-signing: github')
    expect(expectUntouched(w.repo, BRANCH, base)).toEqual([])

    const action = await run(w, 'commit-signing: github')
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const tip = w.repo.gitOrigin('rev-parse', BRANCH)
    expect(w.gitData.verified.has(tip)).toBe(true)
    expect(w.repo.gitOrigin('show', `${tip}:greet.txt`)).toBe('hello, world')
    expect(() => w.repo.gitOrigin('show', `${tip}:old.txt`)).toThrow()
  })

  it.each([
    ['commits another tree than it reports', 'commit' as const, 4],
    ['answers another tree', 'tree' as const, 1]
  ])(
    'refuses a server that %s: the ref on origin put back, nothing written',
    async (_what, tamper, requests) => {
      const w = await world(`signing-${tamper}`)
      w.gitData.tamper = tamper
      const base = w.repo.git('rev-parse', 'HEAD')
      const action = await run(w, 'commit-signing: github\ncomment-on-failure: false')
      expect(action.exitCode).not.toBe(0)
      const error = resultOf(w.repo).error!
      expect(error).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'signed-commit-mismatch' }
      })
      expect(error.message).toContain('is not the approved one')
      expect(expectUntouched(w.repo, BRANCH, base)).toEqual([])
      expect(gitRequests(w.github)).toHaveLength(requests)
    }
  )

  it('refuses commit-signing: github with push: false, before anything runs', async () => {
    const w = await world('signing-nopush')
    const action = await runActionInProcess({
      workspace: w.repo.dir,
      inputs: { push: 'false', settings: 'commit-signing: github' }
    })
    expect(action.exitCode).not.toBe(0)
    expect(action.stdout).toMatch(/Setting "commit-signing": .*needs push: true/)
  })

  it('refuses commit-signing: github without a token, before any model call or commit', async () => {
    const w = await world('signing-notoken')
    const base = w.repo.git('rev-parse', 'HEAD')
    const files = writeInputs(w.repo, {
      'issue.json': { number: 3, title: 'Greet the world', body: '' },
      'plan.json': {
        branch_name: BRANCH,
        plan_steps: ['Greet the world'],
        file_changes: [{ path: 'greet.txt', operation: 'MODIFY' }],
        validation_commands: ['grep -q world greet.txt']
      }
    })
    const action = await runActionInProcess({
      workspace: w.repo.dir,
      env: { GITHUB_API_URL: w.github.url },
      inputs: {
        issue: files['issue.json']!,
        'fix-plan': files['plan.json']!,
        'base-url': w.model.url,
        'api-key': 'sk-test-signing',
        'allow-plan-commands': 'true',
        'output-path': `${w.repo.root}/result.json`,
        settings: 'commit-signing: github'
      }
    })
    expect(action.exitCode).not.toBe(0)
    expect(resultOf(w.repo).error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { rule: 'signing-needs-token' }
    })
    expect(w.model.requests).toHaveLength(0)
    expect(expectUntouched(w.repo, BRANCH, base)).toEqual([])
  })

  it('names the setting when branch protection (GH006) refuses unsigned commits', () => {
    const stderr = [
      'remote: error: GH006: Protected branch update failed for refs/heads/fix/3-greeting.',
      'remote: error: Commits must have verified signatures.',
      ' ! [remote rejected] HEAD -> fix/3-greeting (protected branch hook declined)'
    ].join('\n')
    const error = pushError(BRANCH, { exitCode: 1, stdout: '', stderr })
    expect(error.details.rule).toBe('unsigned-commits-refused')
    expect(error.message).toContain('"commit-signing: github"')
    const other = pushError(BRANCH, {
      exitCode: 1,
      stdout: '',
      stderr: ' ! [remote rejected] HEAD -> x (pre-receive hook declined)'
    })
    expect(other.details.rule).toBe('push-hook-declined')
  })

  it('signs a follow-up round on a pull request, with the ruleset on', async () => {
    const repo = createRepo({ files: { 'greet.txt': 'hello\n' }, prefix: 'signing-follow-up' })
    cleanups.push(() => repo.cleanup())
    const branch = 'fix/12-greeting'
    const first =
      'docs: say hello\n\nFixes #12\n\nSigned-off-by: Bot <bot@example.com>\nPatchsmith-Commit: validated'
    repo.git('checkout', '--quiet', '-b', branch)
    repo.write('README.md', 'Greetings.\n')
    const head = repo.commitAll(first)
    repo.git('push', '--quiet', 'origin', branch)
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    const gitData = github.gitData(repo.origin)
    requireSignedCommits(repo.origin)
    const model = await startModelServer((request) =>
      /Write a unified diff for greet\.txt /.test(JSON.stringify(request.body))
        ? REPLIES['greet.txt']!
        : 'fix(greet): address the review'
    )
    cleanups.push(() => model.close())
    const pr = github.pullRequest({
      number: 12,
      title: 'Greet',
      head: branch,
      headSha: head,
      base: 'main',
      commits: [first],
      files: ['README.md'],
      threads: [
        {
          id: 'T1',
          path: 'greet.txt',
          line: 1,
          comments: [{ body: 'Greet the whole world.', author: 'maintainer' }]
        }
      ]
    })
    const action = await runActionInProcess({
      workspace: repo.dir,
      env: { GITHUB_API_URL: github.url },
      inputs: {
        'follow-up': '12',
        'base-url': model.url,
        'api-key': 'sk-test-signing',
        'github-token': TOKEN,
        'validation-commands': 'grep -q world greet.txt',
        settings: 'commit-signing: github'
      }
    })
    expect(action.exitCode, action.stdout + action.stderr).toBe(0)
    const tip = repo.gitOrigin('rev-parse', branch)
    expect(gitData.verified.has(tip)).toBe(true)
    expect(repo.gitOrigin('rev-parse', `${tip}^`)).toBe(head)
    expect(repo.gitOrigin('show', `${tip}:greet.txt`)).toBe('hello, world')
    expect(repo.git('rev-parse', branch)).toBe(tip)
    expect(action.outputs.sha).toBe(tip)
    expect(pr.threads[0]!.comments.at(-1)!.body).toContain(`Addressed in ${tip}`)
    expect(gitRequests(github)).toHaveLength(3)
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})
