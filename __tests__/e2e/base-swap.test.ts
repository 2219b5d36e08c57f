/**
 * The base check puts the base's files in the work tree by plain writes and shows the command
 * the base's index through GIT_INDEX_FILE (BaseSwap), instead of two `git apply --index` passes
 * over the whole index: the command must still see a consistent base, and no write may follow a
 * link validation left.
 */
import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { FRUIT_BRANCH, fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

function repoWith(files: Record<string, string> = {}) {
  const repo = fruitRepo(files)
  cleanups.push(() => repo.cleanup())
  return repo
}

// Each run of the command notes what it saw: the fruit, git's status, the index file's inode.
const NOTE = `printf '%s|%s|%s\\n' "$(cat fruit.txt)" "$(git status --porcelain | tr '\\n' ' ')" "$(stat -c %i .git/index)" >> ../seen.log`

describe('the base check', () => {
  it('shows the command the base in the work tree and in git, without rewriting the index', async () => {
    const repo = repoWith()
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      'validation-commands': `${NOTE} && sh check.sh`,
      sandbox: 'off'
    })
    expect(run.exitCode, run.stdout).toBe(0)
    const seen = readFileSync(join(repo.root, 'seen.log'), 'utf8').trim().split('\n')
    const [draft, base] = seen.map((line) => line.split('|'))
    expect(seen).toHaveLength(2)
    expect(draft!.slice(0, 2)).toEqual(['kiwi', 'M  fruit.txt '])
    expect(base!.slice(0, 2)).toEqual(['apple', ''])
    // The index the draft was staged in is the file the base run found in .git too.
    expect(base![2]).toBe(draft![2])
    expect(run.result.data![0]!.proof![0]).toMatchObject({ base: 'failed', after: 'passed' })
    expect(repo.gitOrigin('show', `${FRUIT_BRANCH}:fruit.txt`)).toBe('kiwi')
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  it('never writes through a link validation put in a planned path', async () => {
    const repo = repoWith()
    const outside = join(repo.root, 'outside.txt')
    writeFileSync(outside, 'not yours\n')
    // The draft's run swaps fruit.txt for a link out of the work tree, then fails.
    const hostile = `[ "$(cat fruit.txt)" = kiwi ] && rm fruit.txt && ln -s ${outside} fruit.txt; sh check.sh`
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      'validation-commands': hostile,
      sandbox: 'off'
    })
    expect(readFileSync(outside, 'utf8')).toBe('not yours\n')
    expect(lstatSync(join(repo.dir, 'fruit.txt')).isSymbolicLink()).toBe(false)
    expect(run.exitCode).not.toBe(0)
  })
  it('leaves no link to the base index, also when a rerun reuses the branch', async () => {
    const repo = repoWith()
    const first = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]))
    expect(first.exitCode, first.stdout).toBe(0)
    expect(readdirSync(join(repo.dir, '.git/patchsmith'))).not.toContain('base-index')
    repo.git('checkout', '-q', 'main')
    repo.git('branch', '-D', FRUIT_BRANCH)
    const second = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]))
    expect(second.exitCode, second.stdout).toBe(0)
    expect(second.stdout).toMatch(/reused, nothing committed/)
    expect(readdirSync(join(repo.dir, '.git/patchsmith'))).not.toContain('base-index')
  })
})
