/**
 * The snapshot's time mark where the work tree's `.git` is a file (a linked worktree, a
 * submodule's checkout): it cannot be made in `.git`, so it is made in the temp folder and put
 * just before a whole second the clock has passed. What validation makes or changes after it is
 * still seen, on a file system with whole-second times too (ext4 with 128-byte inodes).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/index.js'
import { TreeSnapshot } from '../../src/policy/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'
import { CAN_MAKE_EXT4, coarseTimesFolder, inTempFolder } from '../support/small-disk.js'

const cleanups = cleanupAfterEach()
describe.each([
  ['the temp folder', false],
  ['whole-second times', true]
] as const)('the snapshot of a linked worktree, on %s', (_, coarse) => {
  it.skipIf(coarse && !CAN_MAKE_EXT4)(
    'removes what was made or changed right after the mark, ignored files too',
    async () => {
      const folder = coarse ? coarseTimesFolder(cleanups, 32) : tmpdir()
      const files = { 'README.md': 'hello\n', '.gitignore': 'build/\n' }
      const repo = inTempFolder(folder, () => createRepo({ files }))
      cleanups.push(() => repo.cleanup())
      const linked = join(repo.root, 'linked')
      repo.git('worktree', 'add', '--quiet', '-b', 'linked', linked)
      mkdirSync(join(linked, 'build'))
      writeFileSync(join(linked, 'build/tool'), 'safe\n')

      const snapshot = await TreeSnapshot.take(linked, ['.git'])
      // At once, in the mark's second where times are whole seconds: the same size, rewritten.
      writeFileSync(join(linked, 'build/tool'), 'evil\n')
      writeFileSync(join(linked, 'build/new'), 'x\n')
      writeFileSync(join(linked, 'stray.txt'), 'x\n')
      const removed = await snapshot.putBack(await Git.open(linked), [], () => false)

      expect(removed.sort()).toEqual(['build/new', 'build/tool', 'stray.txt'])
      for (const path of removed) expect(existsSync(join(linked, path))).toBe(false)
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: linked }).toString()).toBe('')
    }
  )
})
