import { describe, expect, it } from 'vitest'
import { failure } from '../support/errors.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { BRANCH, modify, MESSAGE, changeBranchWorld } from '../support/change-branch-world.js'

/** ChangeBranch (src/change) and a branch of the change's name that an earlier run left. */

const cleanups = cleanupAfterEach()
const { repoWith, prepare, run } = changeBranchWorld(cleanups)

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
