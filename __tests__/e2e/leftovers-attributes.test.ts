/**
 * What validation could leave on a folder that was there beside its mode and owner: an extended
 * attribute, a POSIX default ACL (inherited by whatever the job's later steps make in it) or an
 * inode flag. Every command runs under a seccomp filter that refuses them (the put-back could
 * not list them: Node has no call for it), so after the run the folders hold what they held.
 * Through dist/, on the tree itself: as root under bubblewrap and unshare, and as a
 * GitHub-hosted runner's user (bubblewrap).
 */
import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { attributesOf, markAttributesCommand, NODUMP } from '../support/attributes.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { DIST_WAYS } from '../support/sandbox-needs.js'
import { fruitRepo, kiwiInJail } from './fruit.js'

const cleanups = cleanupAfterEach()

const FOLDERS = ['.', 'docs', 'node_modules/pkg']

describe.each(DIST_WAYS)('attributes on folders that were there, %s', (...way) => {
  const [, backend, user, runs] = way
  it.runIf(runs)(
    'an attribute, a default ACL and a flag validation tries to set stay off: the run commits',
    async () => {
      const repo = fruitRepo({ '.gitignore': 'node_modules/\n', 'docs/guide.md': 'guide\n' })
      cleanups.push(() => repo.cleanup())
      mkdirSync(join(repo.dir, 'node_modules/pkg'), { recursive: true })
      const before = FOLDERS.map((path) => attributesOf(join(repo.dir, path)))
      const inputs = {
        'validation-commands': `${markAttributesCommand(FOLDERS)} && sh check.sh`,
        settings: 'validation-overlay: false'
      }
      const done = await kiwiInJail(repo, backend, inputs, {}, user)
      expect(done.exitCode, done.stdout).toBe(0)
      const after = FOLDERS.map((path) => attributesOf(join(repo.dir, path)))
      expect(after.map((found) => found.names)).toEqual(before.map((found) => found.names))
      expect(after.map((found) => found.flags & NODUMP)).toEqual([0, 0, 0])
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  )
})

it('the command saw each call refused (not merely put back): by the jail, not after it', () => {
  // The same command outside any jail sets them all: the test above could fail.
  const dir = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim()
  cleanups.push(() => execFileSync('rm', ['-rf', dir]))
  const out = execFileSync('/bin/sh', ['-c', markAttributesCommand([dir])], { encoding: 'utf8' })
  expect(out).toBe(`${dir}: xattr 0 acl 0 flags 0 setattr 0\n`)
  expect(attributesOf(dir).names).toContain('system.posix_acl_default')
})

describe.each(DIST_WAYS.slice(0, 2))('a file carried from the overlay, %s', (...way) => {
  const [, backend, , runs] = way
  it.runIf(runs)(
    'keeps none of overlayfs’s own attributes (copied up when validation rewrote it)',
    async () => {
      const repo = fruitRepo()
      cleanups.push(() => repo.cleanup())
      // A formatter's rewrite in place: the same content, the file copied up.
      const rewrite = 'cat fruit.txt > ../f && cat ../f > fruit.txt && sh check.sh'
      const done = await kiwiInJail(repo, backend, { 'validation-commands': rewrite })
      expect(done.exitCode, done.stdout).toBe(0)
      expect(attributesOf(join(repo.dir, 'fruit.txt')).names).toEqual([])
      expect(repo.read('fruit.txt')).toBe('kiwi\n')
    }
  )

  it.runIf(runs)(
    'past 64 MiB is moved as it is: a sparse file kept whole, never written out',
    async () => {
      const repo = fruitRepo({ '.gitignore': 'out/\n' })
      cleanups.push(() => repo.cleanup())
      const inputs = {
        'validation-commands': 'mkdir -p out && truncate -s 65M out/big.bin && sh check.sh',
        settings: 'validation-keep: out/big.bin'
      }
      const done = await kiwiInJail(repo, backend, inputs)
      expect(done.exitCode, done.stdout).toBe(0)
      const kept = lstatSync(join(repo.dir, 'out/big.bin'))
      expect(kept.size).toBe(65 * 1024 * 1024)
      // A copy would hold 65 MiB of blocks.
      expect(kept.blocks * 512).toBeLessThan(1024 * 1024)
    }
  )
})
