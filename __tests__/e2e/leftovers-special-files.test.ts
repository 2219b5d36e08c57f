/**
 * Fifos validation leaves on the tree itself (no overlay), where git opens them: git reads every
 * `.gitignore` (status, the untracked listing) and `.gitattributes` (apply, and each file it
 * hashes), and opening a fifo waits for a writer that never comes. Before git looks at the tree,
 * after the round and before git resets it mid-round (a base check after a command changed a
 * planned file, so the files cannot simply be swapped back), the fifos, sockets
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

type Way = readonly [string, string, string | undefined, boolean]

async function run(way: Way, validation: string, diffs: string[]) {
  const [, backend, user] = way
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

describe.each(WAYS)('fifos validation leaves on the tree itself, %s', (...way) => {
  it.runIf(way[3])(
    'removes them before git looks: the run commits, the fifos are gone and named',
    async () => {
      const { repo, done } = await run(
        way,
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
})

// The tree itself is the default as a hosted runner's user: one way is enough for this path.
const HOSTED = WAYS[2]
describe('a fifo validation leaves before git resets mid-round, ' + HOSTED[0], () => {
  it.runIf(HOSTED[3])(
    'is removed first: the base check after a planned file changed refuses, nothing hangs',
    async () => {
      // The mode change makes the base check reset with git instead of swapping files back.
      const { repo, done } = await run(
        HOSTED,
        'mkfifo .gitattributes; chmod +x fruit.txt; node check.js',
        [swap('apple', 'pear')]
      )
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
