/**
 * Fifos validation leaves on the tree itself (no overlay), where git opens them: git reads every
 * `.gitignore` (status, the untracked listing) and `.gitattributes` (apply, and each file it
 * hashes), and opening a fifo waits for a writer that never comes. Before git looks at the tree,
 * after the round and between its commands (the base check after a failure), the fifos, sockets
 * and devices validation left are removed: the run ends, and the tree is as found plus the
 * change. Through dist/, as root under bubblewrap and unshare, and as a GitHub-hosted runner's
 * user (bubblewrap, not root: the tree itself is the default there).
 */
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

const WAYS = [
  ['as root, bubblewrap', 'bubblewrap', undefined, !skipWithout('bubblewrap')],
  ['as root, unshare', 'unshare', undefined, !skipWithout('unshare')],
  [
    "as a hosted runner's user (bubblewrap)",
    'bubblewrap',
    SUDO_USER,
    !skipWithout('bubblewrap') && !skipWithout('sudo-unshare')
  ]
] as const

describe.each(WAYS)('fifos validation leaves on the tree itself, %s', (_, backend, user, runs) => {
  async function run(validation: string, diffs: string[]) {
    const repo = fruitRepo({ '.gitignore': 'node_modules/\n' })
    cleanups.push(() => repo.cleanup())
    const done = await runOnFruit(
      repo,
      fruitReplies(diffs),
      {
        'validation-commands': validation,
        sandbox: 'required',
        settings: 'validation-overlay: false'
      },
      { PATCHSMITH_SANDBOX_BACKENDS: backend },
      { dist: true, user }
    )
    return { repo, done }
  }

  function expectGone(root: string, paths: string[]) {
    for (const path of paths)
      expect(lstatSync(join(root, path), { throwIfNoEntry: false }), path).toBeUndefined()
  }

  it.runIf(runs)(
    'removes them before git looks: the run commits, the fifos are gone and named',
    async () => {
      const { repo, done } = await run(
        'mkdir -p sub && mkfifo sub/.gitignore .gitattributes && node check.js',
        [swap('apple', 'kiwi')]
      )
      expect(done.exitCode, done.stdout).toBe(0)
      expectGone(repo.dir, ['.gitattributes', 'sub'])
      expect(done.result.metrics?.removed_after_validation).toEqual({
        count: 2,
        paths: ['.gitattributes', 'sub']
      })
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
    }
  )

  it.runIf(runs)(
    'removes them between commands: the base check after a failure, then the repair',
    async () => {
      // The first draft fails; the same command runs again on the base, then the repair passes.
      const { repo, done } = await run('mkfifo .gitattributes; node check.js', [
        swap('apple', 'pear'),
        swap('pear', 'kiwi')
      ])
      expect(done.exitCode, done.stdout).toBe(0)
      expect(done.result.data![0]!.validation_results[0]).toMatchObject({ exit_code: 0 })
      expect(done.result.metrics).toMatchObject({ attempts: 2, repairs: 1 })
      expectGone(repo.dir, ['.gitattributes'])
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
    }
  )

  it.runIf(runs)(
    'removes them before git resets the tree for the base check (a planned file changed)',
    async () => {
      // The mode change makes the base check reset with git instead of swapping files back.
      const { repo, done } = await run('mkfifo .gitattributes; chmod +x fruit.txt; node check.js', [
        swap('apple', 'pear')
      ])
      expect(done.exitCode, done.stdout).toBe(1)
      expect(done.result.error?.details).toMatchObject({
        rule: 'unexpected-changes',
        stage: 'base-check'
      })
      expectGone(repo.dir, ['.gitattributes'])
      expect(done.result.metrics?.removed_after_validation).toEqual({
        count: 1,
        paths: ['.gitattributes']
      })
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
    }
  )
})
