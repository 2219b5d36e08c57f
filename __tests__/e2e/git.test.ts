import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { runCli, type ActionRun, secretFlag } from '../support/action-runner.js'
import { runActionInProcess, runCliInProcess } from '../support/in-process.js'
import { startGitHubServer } from '../support/github-server.js'
import { startGitHttpServer } from '../support/git-http-server.js'
import { replyByMatch, startModelServer, type ModelServer } from '../support/model-server.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import {
  expectUntouched,
  TYPO_EXAMPLE,
  TYPO_LINT,
  TYPO_PLAN,
  typoCliArgs,
  typoReplies,
  typoRepo,
  writeInputs
} from './scenario.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout } from '../support/sandbox-needs.js'

const cleanups = cleanupAfterEach()

const BRANCH = 'docs/42-fix-typo-readme'

function track<T extends { cleanup(): void }>(repo: T): T {
  cleanups.push(() => repo.cleanup())
  return repo
}

async function typoModel(): Promise<ModelServer> {
  const server = await startModelServer(replyByMatch(typoReplies().replies))
  cleanups.push(() => server.close())
  return server
}

async function typoRun(
  repo: TestRepo,
  server: ModelServer,
  inputs: Record<string, string> = {},
  env: Record<string, string> = {}
): Promise<ActionRun & { result: CodeAgentOutput }> {
  const output = join(repo.root, `result-${randomUUID()}.json`)
  const run = await runActionInProcess({
    workspace: repo.dir,
    env,
    inputs: {
      issue: `${TYPO_EXAMPLE}/issue.json`,
      'fix-plan': TYPO_PLAN,
      'triage-result': `${TYPO_EXAMPLE}/triage-result.json`,
      'base-url': server.url,
      'api-key': 'sk-test-git',
      model: typoReplies().model,
      'validation-commands': TYPO_LINT,
      'output-path': output,
      ...inputs
    }
  })
  return { ...run, result: JSON.parse(readFileSync(output, 'utf8')) as CodeAgentOutput }
}

describe('reruns and existing branches (through the action)', () => {
  it('a rerun of the same plan reuses the pushed branch and makes no second commit', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const server = await typoModel()
    const first = await typoRun(repo, server)
    expect(first.exitCode, first.stdout).toBe(0)
    const sha = first.outputs.sha!
    // A rerun starts from a fresh checkout of the base.
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-D', BRANCH)
    const second = await typoRun(repo, server)
    expect(second.exitCode, second.stdout).toBe(0)
    expect(second.outputs).toMatchObject({ success: 'true', sha, pushed: 'true', branch: BRANCH })
    expect(second.outputs['patch-id']).toBe(first.outputs['patch-id'])
    expect(second.stdout).toMatch(/already holds this change .*reused, nothing committed/)
    expect(repo.gitOrigin('rev-list', '--count', `${base}..refs/heads/${BRANCH}`)).toBe('1')
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(sha)
    expect(second.result.data![0]!.message).toBe(first.result.data![0]!.message)
    // No commit-message call the second time: the branch's own message is kept.
    expect(
      server.requests.filter((r) => JSON.stringify(r.body).includes('Conventional Commit'))
    ).toHaveLength(1)
  })

  it('a branch that diverged (another change on it) is BRANCH_EXISTS and is left as it was', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    repo.git('checkout', '-q', '-b', BRANCH)
    repo.write('README.md', repo.read('README.md').replace('teh', 'thee'))
    const theirs = repo.commitAll('docs(readme): someone else fixed it differently')
    repo.git('push', '-q', 'origin', BRANCH)
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-D', BRANCH)
    const server = await typoModel()
    const run = await typoRun(repo, server)
    expect(run.exitCode).toBe(1)
    expect(run.outputs['error-code']).toBe('BRANCH_EXISTS')
    expect(run.result.error!.message).toMatch(
      /already exists \(on origin\) with a different change/
    )
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(theirs)
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
  })
})

describe('push access over HTTP, checked before any model call', () => {
  const WRITE = 'ghs_write0000000000000000000000000000'
  const READ = 'ghs_readonly000000000000000000000000'

  async function httpOrigin(repo: TestRepo) {
    const remote = await startGitHttpServer(repo.origin, { writeTokens: [WRITE] })
    cleanups.push(() => remote.close())
    repo.git('remote', 'set-url', 'origin', remote.url)
    return remote
  }

  it('refuses a token that may read but not push with PERMISSION_DENIED, no model call, nothing touched', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const remote = await httpOrigin(repo)
    const server = await typoModel()
    const run = await typoRun(
      repo,
      server,
      { 'github-token': READ, settings: 'comment-on-failure: false' },
      {
        GITHUB_SERVER_URL: remote.origin
      }
    )
    expect(run.outputs['error-code']).toBe('PERMISSION_DENIED')
    expect(run.result.error!.details).toMatchObject({ rule: 'push-not-allowed' })
    expect(run.result.error!.message).toMatch(
      /Cannot push to origin \(http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\.git\)/
    )
    expect(run.result.error!.message).toContain('contents: write')
    expect(server.requests).toHaveLength(0)
    expect(expectUntouched(repo, BRANCH, base)).toEqual([])
    expect(JSON.stringify(run.result)).not.toContain(READ)
  })

  it('pushes with a token that may write, sent only as the scoped header', async () => {
    const repo = track(typoRepo())
    const remote = await httpOrigin(repo)
    const server = await typoModel()
    const run = await typoRun(
      repo,
      server,
      { 'github-token': WRITE },
      {
        GITHUB_SERVER_URL: remote.origin
      }
    )
    expect(run.exitCode, run.stdout).toBe(0)
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toMatch(/^[0-9a-f]{40}$/)
    const pushes = remote.requests.filter((r) => r.path.endsWith('/git-receive-pack'))
    expect(pushes.length).toBeGreaterThan(0)
    expect(pushes.every((r) => r.token === WRITE)).toBe(true)
    expect(repo.git('config', '--list')).not.toMatch(/extraheader/i)
  })

  it("refuses an origin that is not the workflow's repository (SECURITY_VIOLATION, no model call, nothing sent)", async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const remote = await httpOrigin(repo)
    const server = await typoModel()
    const run = await typoRun(
      repo,
      server,
      { 'github-token': WRITE, settings: 'comment-on-failure: false' },
      { GITHUB_SERVER_URL: remote.origin, GITHUB_REPOSITORY: 'acme/gadgets' }
    )
    expect(run.outputs['error-code']).toBe('SECURITY_VIOLATION')
    expect(run.result.error!.details).toMatchObject({ rule: 'unexpected-remote' })
    expect(run.result.error!.message).toContain('acme/gadgets')
    expect(server.requests).toHaveLength(0)
    expect(remote.requests).toEqual([])
    expect(expectUntouched(repo, BRANCH, base)).toEqual([])
  })
})

describe('a push refused by the remote', () => {
  it('is PERMISSION_DENIED, cleaned up, with exactly one comment and one label on the issue', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const hook = join(repo.origin, 'hooks', 'pre-receive')
    writeFileSync(
      hook,
      '#!/bin/sh\necho "GH006: Protected branch policy: agents may not push" >&2\nexit 1\n'
    )
    chmodSync(hook, 0o755)
    const server = await typoModel()
    const github = await startGitHubServer()
    cleanups.push(() => github.close())
    const token = 'ghs_pushtoken000000000000000000000000'
    const run = await typoRun(
      repo,
      server,
      { 'github-token': token },
      { GITHUB_API_URL: github.url, GITHUB_RUN_ID: '99' }
    )
    expect(run.exitCode).toBe(1)
    expect(run.outputs).toMatchObject({
      'error-code': 'PERMISSION_DENIED',
      success: 'false',
      pushed: 'false'
    })
    expect(run.result.error!.details).toMatchObject({ rule: 'push-hook-declined' })
    expect(expectUntouched(repo, BRANCH, base)).toEqual([])
    const comments = github.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/issues/42/comments')
    )
    const labels = github.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/issues/42/labels')
    )
    expect(comments).toHaveLength(1)
    expect(labels).toHaveLength(1)
    expect(labels[0]!.body).toEqual({ labels: ['automation-failed'] })
    // The run's one comment (its progress comment, the run being by hand) as it ends.
    expect(github.comments).toHaveLength(1)
    const body = github.comments[0]!.body
    expect(body).toContain('`PERMISSION_DENIED`')
    expect(body).toContain('refused by a server hook')
    expect(body).toContain('GH006: Protected branch policy')
    expect(body).toContain('/acme/widgets/actions/runs/99')
    expect(JSON.stringify(github.requests.map((r) => r.body))).not.toContain(token)
    expect(github.requests[0]!.headers.authorization).toBe(`token ${token}`)
    expect(run.summary).toContain('`PERMISSION_DENIED`')
  })
})

/**
 * The git steps of peter-evans/create-pull-request's createOrUpdateBranch, for a branch that
 * does not exist on origin yet: a temp branch at HEAD, the working base reset to its remote,
 * the temp branch's commits cherry-picked onto the base when the two differ, then the pull
 * request branch made from the temp branch and pushed.
 */
function createPullRequestSteps(repo: TestRepo, base: string, branch: string): string {
  const workingBase = repo.git('symbolic-ref', 'HEAD', '--short')
  const temp = randomUUID()
  repo.git('checkout', '--progress', '-B', temp, 'HEAD', '--')
  repo.git('stash', 'push', '--include-untracked')
  repo.git('checkout', '--progress', workingBase, '--')
  repo.git('reset', '--hard', `origin/${workingBase}`)
  if (workingBase !== base) {
    repo.git('fetch', '--force', 'origin', `${base}:${base}`)
    repo.git('checkout', '--progress', base, '--')
    const commits = repo.git('rev-list', '--reverse', `${workingBase}..${temp}`, '.')
    for (const commit of commits.split('\n').filter(Boolean))
      repo.git('cherry-pick', '--strategy=recursive', '--strategy-option=theirs', commit)
    repo.git('checkout', '--progress', '-B', temp, 'HEAD', '--')
  }
  repo.git('checkout', '--progress', '-B', branch, temp, '--')
  const ahead = repo.git('rev-list', '--right-only', '--count', `${base}...${branch}`)
  repo.git('push', '--force-with-lease', 'origin', `${branch}:refs/heads/${branch}`)
  repo.git('branch', '--delete', '--force', temp)
  repo.git('checkout', '--progress', workingBase, '--')
  return ahead
}

describe('push: false, the hand-off to create-pull-request', () => {
  it('leaves the commit on the checked-out base, where create-pull-request picks it up', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const server = await typoModel()
    const run = await typoRun(repo, server, { push: 'false' })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.outputs).toMatchObject({ branch: BRANCH, pushed: 'false' })
    const sha = run.outputs.sha!
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('rev-parse', 'HEAD')).toBe(sha)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
    expect(run.summary).toContain('not pushed')

    expect(createPullRequestSteps(repo, 'main', BRANCH)).toBe('1')
    const pushed = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    expect(repo.gitOrigin('rev-parse', `${pushed}^`)).toBe(base)
    expect(repo.gitOrigin('log', '-1', '--format=%B', pushed)).toBe(
      repo.git('log', '-1', '--format=%B', sha)
    )
    expect(repo.gitOrigin('diff', '--name-only', base, pushed)).toBe('README.md')
    // create-pull-request resets the base to origin: the local base no longer holds the commit.
    expect(repo.git('rev-parse', 'main')).toBe(base)
  })

  it('(the state it replaces, a feature branch checked out and never pushed, breaks those steps)', () => {
    const repo = track(typoRepo())
    repo.git('checkout', '-q', '-b', BRANCH)
    repo.write('README.md', repo.read('README.md').replace('teh', 'the'))
    repo.commitAll('docs(readme): correct typo in installation section')
    expect(() => createPullRequestSteps(repo, 'main', BRANCH)).toThrow(
      /origin\/docs\/42-fix-typo-readme/
    )
  })
})

describe('the user’s own uncommitted work (node dist/cli.js)', () => {
  it('is intact after a successful run and after a failed one', async () => {
    const repo = track(typoRepo())
    const server = await typoModel()
    repo.write(
      'package.json',
      repo.read('package.json').replace('"private"', '"description": "mine",\n  "private"')
    )
    repo.write('scripts/notes.md', 'my notes, untracked\n')
    repo.write('.gitignore', `${repo.read('.gitignore')}dist/\n`)
    repo.git('add', '.gitignore')
    const mine = () => ({
      status: repo.git('status', '--porcelain'),
      pkg: repo.read('package.json'),
      notes: repo.read('scripts/notes.md')
    })
    const before = mine()
    expect(before.status).toContain(' M package.json')
    expect(before.status).toContain('M  .gitignore')
    const args = [...typoCliArgs(repo.dir, server.url), ...secretFlag('--api-key-file', 'k-cli')]
    const ok = await runCli(['--json', ...args, '--no-push'])
    expect(ok.exitCode, ok.stderr).toBe(0)
    expect(mine()).toEqual(before)
    const committed = (JSON.parse(ok.stdout) as CodeAgentOutput).data![0]!.sha
    expect(repo.git('show', '--name-only', '--format=', committed)).toBe('README.md')

    // The commit is on the plan's branch; main and the user's changes are as they were.
    expect(repo.git('rev-parse', BRANCH)).toBe(committed)
    expect(repo.git('rev-parse', 'HEAD')).toBe(repo.git('rev-parse', `${committed}^`))

    // A failing run (the model is gone) rolls back around the user's changes.
    repo.git('branch', '-D', BRANCH)
    const afterFirst = mine()
    await server.close()
    // In-process (src/cli's cli()): the run above is the bundled CLI's.
    const failed = await runCliInProcess([...args, '--no-push', '--model-retries', '0'])
    expect(failed.exitCode).toBe(1)
    expect(mine()).toEqual(afterFirst)
    expect(repo.git('stash', 'list')).toBe('')
  })
})

describe('commit settings (through the action)', () => {
  it('git-hooks: true runs the repository hook; one that keeps failing is VALIDATION_FAILED', async () => {
    const repo = track(typoRepo())
    const base = repo.git('rev-parse', 'HEAD')
    const hook = join(repo.dir, '.git', 'hooks', 'pre-commit')
    writeFileSync(
      hook,
      '#!/bin/sh\necho "pre-commit: README.md needs a review stamp" >&2\nexit 1\n'
    )
    chmodSync(hook, 0o755)
    const server = await typoModel()
    const off = await typoRun(repo, server, { push: 'false' })
    expect(off.exitCode, off.stdout).toBe(0)
    repo.git('reset', '-q', '--hard', base)
    repo.git('branch', '-D', BRANCH)
    const on = await typoRun(repo, server, { push: 'false', 'git-hooks': 'true' })
    expect(on.exitCode).toBe(1)
    expect(on.result.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { rule: 'commit-hook' }
    })
    expect(String(on.result.error!.details!.stderr)).toContain('needs a review stamp')
    expect(expectUntouched(repo, BRANCH, base)).toEqual([])
  })

  it.each(['bubblewrap', 'unshare'] as const)(
    'git-hooks: true never waits past command-timeout (%s): git in the jail on a fifo at .git/COMMIT_EDITMSG is stopped, nothing committed or left',
    async (backend) => {
      if (skipWithout(backend)) return
      const repo = track(typoRepo())
      const base = repo.git('rev-parse', 'HEAD')
      // git commit writes the message there before the hooks run: in the jail (another PID
      // namespace, where the fifo watch does not look) it waited for a reader forever.
      rmSync(join(repo.dir, '.git', 'COMMIT_EDITMSG'), { force: true })
      execFileSync('mkfifo', [join(repo.dir, '.git', 'COMMIT_EDITMSG')])
      const server = await typoModel()
      const inputs = { push: 'false', 'git-hooks': 'true', 'command-timeout': '10' }
      const run = await typoRun(repo, server, inputs, { PATCHSMITH_SANDBOX_BACKENDS: backend })
      expect(run.exitCode).toBe(1)
      expect(run.result.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { rule: 'commit-hook', timed_out: true }
      })
      expect(run.result.error!.message).toContain('command-timeout')
      expect(expectUntouched(repo, BRANCH, base)).toEqual([])
      expect(existsSync(join(repo.dir, '.git', 'index.lock'))).toBe(false)
    }
  )

  describe('what the hooks leave in the work tree is removed, before git looks at it again', () => {
    const LEFT = ['left.txt', 'left.fifo', '.gitattributes', 'sub/.gitignore', 'node_modules/x.js']
    const LEAVE = [
      'echo x > left.txt; mkfifo left.fifo .gitattributes; mkdir -p sub node_modules',
      'mkfifo sub/.gitignore; echo y > node_modules/x.js',
      // A folder chain past PATH_MAX.
      'd=deep; for i in $(seq 25); do d=$d/$(printf "%0200d" $i); done; mkdir -p "$d"; touch "$d/f"'
    ].join('\n')

    /** What of LEFT (and the deep chain) is still there; the fifos are taken away either way. */
    function leftBehind(repo: TestRepo): string[] {
      const there = [...LEFT, 'deep'].filter((path) =>
        lstatSync(join(repo.dir, path), { throwIfNoEntry: false })
      )
      // Before any git of the test's own: one would wait on a fifo left there forever.
      // rm(1) walks a chain past PATH_MAX; node's rmSync does not.
      for (const path of there) execFileSync('rm', ['-rf', '--', join(repo.dir, path)])
      return there
    }

    it.each([
      ['a pre-commit hook that refuses', 'pre-commit', 'exit 1', 1, 'true'],
      ['a post-commit hook, the commit made', 'post-commit', 'exit 0', 0, 'true'],
      [
        'a post-commit hook, with no sandbox (the hooks run bare)',
        'post-commit',
        'exit 0',
        0,
        'off'
      ]
    ])('%s', async (_name, hook, end, exitCode, overlay) => {
      const repo = track(typoRepo())
      const base = repo.git('rev-parse', 'HEAD')
      // node_modules/ is ignored there: what a hook writes in it git never lists.
      expect(repo.read('.gitignore')).toContain('node_modules/')
      const file = join(repo.dir, '.git', 'hooks', hook)
      writeFileSync(file, `#!/bin/sh\n${LEAVE}\n${end}\n`)
      chmodSync(file, 0o755)
      const way: Record<string, string> =
        overlay === 'off' ? { sandbox: 'off' } : { 'validation-overlay': overlay }
      const inputs = { push: 'false', 'git-hooks': 'true', ...way }
      const run = await typoRun(repo, await typoModel(), inputs)
      expect(leftBehind(repo)).toEqual([])
      expect(run.exitCode, run.stdout).toBe(exitCode)
      if (exitCode === 0) {
        expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
        // On an overlay nothing the hooks wrote reached the tree; run bare, it is removed.
        if (overlay === 'off') expect(run.stdout).toContain('The commit hooks left')
      } else {
        expect(run.result.error).toMatchObject({ details: { rule: 'commit-hook' } })
        expect(expectUntouched(repo, BRANCH, base)).toEqual([])
      }
    })
  })

  it.each([
    ['pre-commit', 'exit 1', 1],
    ['post-commit', 'exit 0', 0]
  ])(
    'a %s hook that touches, appends to or links the user’s own files never has them removed',
    async (hook, end, exitCode) => {
      const repo = track(typoRepo())
      writeFileSync(join(repo.dir, 'notes.txt'), 'mine\n')
      repo.write('node_modules/user.js', 'mine\n')
      const file = join(repo.dir, '.git', 'hooks', hook)
      const body = 'touch node_modules/user.js; echo more >> notes.txt; ln notes.txt n2'
      writeFileSync(file, `#!/bin/sh\n${body}\n${end}\n`)
      chmodSync(file, 0o755)
      const run = await typoRun(repo, await typoModel(), { push: 'false', 'git-hooks': 'true' })
      expect(run.exitCode, run.stdout).toBe(exitCode)
      expect(repo.read('notes.txt')).toContain('mine')
      expect(repo.read('node_modules/user.js')).toBe('mine\n')
      expect(existsSync(join(repo.dir, 'n2'))).toBe(false)
    }
  )

  it.each(['bubblewrap', 'unshare'] as const)(
    'a hook that replaces the user’s own files with a link or a fifo never costs them (%s, on an overlay of the tree)',
    async (backend) => {
      if (skipWithout(backend)) return
      for (const [hook, end, exitCode] of [
        ['pre-commit', 'exit 1', 1],
        ['post-commit', 'exit 0', 0]
      ] as const) {
        const repo = track(typoRepo())
        writeFileSync(join(repo.dir, 'notes.txt'), 'mine\n')
        repo.write('node_modules/user.js', 'mine\n')
        const file = join(repo.dir, '.git', 'hooks', hook)
        const body = [
          'rm notes.txt; ln -s /etc/passwd notes.txt',
          'rm node_modules/user.js; mkfifo node_modules/user.js',
          'echo planted > node_modules/other.js'
        ].join('\n')
        writeFileSync(file, `#!/bin/sh\n${body}\n${end}\n`)
        chmodSync(file, 0o755)
        const inputs = { push: 'false', 'git-hooks': 'true' }
        const run = await typoRun(repo, await typoModel(), inputs, {
          PATCHSMITH_SANDBOX_BACKENDS: backend
        })
        const kinds = ['notes.txt', 'node_modules/user.js', 'node_modules/other.js'].map((path) =>
          lstatSync(join(repo.dir, path), { throwIfNoEntry: false })?.isFile()
        )
        expect(kinds, hook).toEqual([true, true, undefined])
        expect(run.exitCode, run.stdout).toBe(exitCode)
        expect(repo.read('notes.txt')).toBe('mine\n')
        expect(repo.read('node_modules/user.js')).toBe('mine\n')
        if (exitCode === 0) expect(repo.git('log', '-1', '--format=%s')).toMatch(/^docs/)
      }
    }
  )

  it('a plan of more than ten steps that names each step’s files commits once per step', async () => {
    const files = { 'src/a.txt': 'alpha\n', 'src/b.txt': 'beta\n' }
    const repo = track(createRepo({ files, prefix: 'steps' }))
    const base = repo.git('rev-parse', 'HEAD')
    const server = await startModelServer((request) => {
      const text = JSON.stringify(request.body)
      const name = ['a', 'b'].find((n) => text.includes(`Write a unified diff for src/${n}.txt`))
      const before = name === 'a' ? 'alpha' : 'beta'
      return name
        ? `--- a/src/${name}.txt\n+++ b/src/${name}.txt\n@@ -1 +1 @@\n-${before}\n+${before.toUpperCase()}\n`
        : 'chore(src): not used for step commits'
    })
    cleanups.push(() => server.close())
    const steps = Array.from({ length: 12 }, (_, i) => ({
      description: `Step ${i + 1}: nothing to change here`
    }))
    steps[2] = { description: 'Shout alpha in capital letters', files: ['src/a.txt'] } as never
    steps[8] = { description: 'Shout beta in capital letters', files: ['src/b.txt'] } as never
    const inputs = writeInputs(repo, {
      'issue.json': { number: 11, title: 'Make the letters louder', body: '' },
      'plan.json': {
        branch_name: 'chore/11-louder',
        plan_steps: steps,
        file_changes: [
          { path: 'src/a.txt', operation: 'MODIFY' },
          { path: 'src/b.txt', operation: 'MODIFY' }
        ],
        validation_commands: ['test -s src/a.txt']
      }
    })
    const run = await runActionInProcess({
      workspace: repo.dir,
      inputs: {
        issue: inputs['issue.json']!,
        'fix-plan': inputs['plan.json']!,
        'base-url': server.url,
        'api-key': 'k',
        'validation-commands': 'test -s src/a.txt'
      }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    const tip = repo.gitOrigin('rev-parse', 'refs/heads/chore/11-louder')
    const subjects = repo
      .gitOrigin('log', '--reverse', '--format=%s', `${base}..${tip}`)
      .split('\n')
    expect(subjects).toEqual([
      'chore(src): shout alpha in capital letters',
      'chore(src): shout beta in capital letters'
    ])
    expect(repo.gitOrigin('show', '--name-only', '--format=', `${tip}^`)).toBe('src/a.txt')
    expect(repo.gitOrigin('show', '--name-only', '--format=', tip)).toBe('src/b.txt')
    expect(run.outputs.sha).toBe(tip)
  })
})
