/**
 * A merge that cannot finish (a name of the repository's that Node's paths cannot name, deleted
 * by the command) must leave nothing of the command's in the work tree and refuse the run. (On
 * the tree itself the watch fails on such a name too, with git-command-failed, and the planted
 * file stays: not the overlay's doing.)
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

it('merges nothing and refuses when validation deleted a name that is not UTF-8, on an overlay', async () => {
  const repo = fruitRepo({ 'sub/keep.txt': 'keep\n' })
  cleanups.push(() => repo.cleanup())
  writeFileSync(
    Buffer.concat([Buffer.from(join(repo.dir, 'sub', 'bad')), Buffer.from([0xff])]),
    'x\n'
  )
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'a name that is not UTF-8')
  const hostile = 'echo planted > aaa-planted.txt && rm sub/bad* && sh check.sh'
  const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
    'validation-commands': hostile,
    sandbox: 'required',
    settings: 'validation-overlay: true'
  })
  expect(run.stdout).toContain('on an overlay of the work tree')
  expect(run.result.error?.details?.rule, run.stdout).toBe('unexpected-changes')
  expect(run.result.error?.message).toContain('not UTF-8')
  expect(existsSync(join(repo.dir, 'aaa-planted.txt'))).toBe(false)
  expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
}, 120_000)

it.skipIf(process.getuid?.() !== 0)(
  'a read-only mount inside the work tree that validation wrote under: nothing half merged, the run goes on',
  async () => {
    const repo = fruitRepo({ 'vendor/lib.txt': 'lib\n', '.gitignore': 'vendor/cache/\n' })
    cleanups.push(() => repo.cleanup())
    const vendor = join(repo.dir, 'vendor')
    execFileSync('mount', ['--bind', vendor, vendor])
    execFileSync('mount', ['-o', 'remount,bind,ro', vendor])
    cleanups.push(() => execFileSync('umount', ['-l', vendor]))
    // On the overlay the mount is not there: the writes land in the upper, where the merge
    // would have had to rename them across the mount (EXDEV) after merging the rest.
    const hostile =
      'echo planted > aaa-planted.txt && mkdir -p vendor/cache && echo x > vendor/cache/x && echo y > vendor/lib.txt && sh check.sh'
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      'validation-commands': hostile,
      sandbox: 'required',
      settings: 'validation-overlay: true'
    })
    expect(run.stdout).toContain('on an overlay of the work tree')
    expect(run.result.success, JSON.stringify(run.result.error)).toBe(true)
    expect(existsSync(join(repo.dir, 'aaa-planted.txt'))).toBe(false)
    expect(existsSync(join(vendor, 'cache'))).toBe(false)
    expect(readFileSync(join(vendor, 'lib.txt'), 'utf8')).toBe('lib\n')
  }
)
