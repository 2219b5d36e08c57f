/**
 * The search for files of more than one name where commands write in place, and their
 * separation into copies of their own (attack rounds 24 and 25).
 */
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { multiLinkedIn, separate } from '../../src/sandbox/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'

const cleanups = cleanupAfterEach()

/** A folder `t*[1]` (glob characters in its path) holding a tree and a folder outside it. */
function place(): { tree: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-links-'))
  cleanups.push(() => rmSync(root, { recursive: true, force: true }))
  const tree = join(root, 't*[1]')
  const outside = join(root, 'outside')
  for (const folder of [
    join(tree, '.git', 'objects', 'ab'),
    join(tree, '.git', 'hooks'),
    join(tree, 'tools'),
    outside
  ])
    mkdirSync(folder, { recursive: true })
  return { tree, outside }
}

describe('files of more than one name', () => {
  it('are found by the real path, in git folders but the object store, twice-named inside the tree too', () => {
    const { tree, outside } = place()
    writeFileSync(join(outside, 'deploy-ssh'), 'program\n')
    linkSync(join(outside, 'deploy-ssh'), join(tree, 'tools', 'deploy-ssh'))
    writeFileSync(join(tree, 'a.txt'), 'a\n')
    linkSync(join(tree, 'a.txt'), join(tree, 'tools', 'a.txt'))
    writeFileSync(join(outside, 'hook'), 'hook\n')
    linkSync(join(outside, 'hook'), join(tree, '.git', 'hooks', 'post-commit'))
    writeFileSync(join(outside, 'object'), 'x')
    linkSync(join(outside, 'object'), join(tree, '.git', 'objects', 'ab', 'cd'))
    // Reached through a link (a workspace moved to a bigger disk and linked back).
    const linked = join(outside, 'workspace')
    symlinkSync(tree, linked)
    const inTree = multiLinkedIn(linked, [join(linked, '.git')])
    expect(inTree.paths.sort()).toEqual(
      [join(tree, 'a.txt'), join(tree, 'tools', 'a.txt'), join(tree, 'tools', 'deploy-ssh')].sort()
    )
    expect(inTree.unlisted).toBeUndefined()
    const git = join(linked, '.git')
    expect(multiLinkedIn(git, [join(git, 'objects')]).paths).toEqual([
      join(tree, '.git', 'hooks', 'post-commit')
    ])
  })

  it('are each made a copy of their own: content, mode and times kept, the other name untouched', () => {
    const { tree, outside } = place()
    const program = join(outside, 'deploy-ssh')
    writeFileSync(program, 'program\n', { mode: 0o750 })
    utimesSync(program, new Date('2020-01-02'), new Date('2020-01-02'))
    // A name as long as a folder allows: the copy's own name must still fit.
    const names = [join(tree, 'tools', 'deploy-ssh'), join(tree, 'tools', 'x'.repeat(255))]
    for (const name of names) linkSync(program, name)
    expect(separate(names)).toEqual({ copied: 2 })
    for (const name of names) {
      const stat = lstatSync(name)
      expect([stat.nlink, stat.mode & 0o777, stat.mtime.toISOString()]).toEqual([
        1,
        0o750,
        '2020-01-02T00:00:00.000Z'
      ])
      writeFileSync(name, 'rewritten\n')
    }
    expect(readFileSync(program, 'utf8')).toBe('program\n')
    expect(lstatSync(program).nlink).toBe(1)
  })
  it.skipIf(process.getuid?.() !== 0)(
    "are copied where the jail's user could write them: as their owner (who may chmod a read-only one), or by a group or everyone",
    () => {
      const { tree, outside } = place()
      const user = 4242
      const file = (name: string, owner: number, mode: number) => {
        writeFileSync(join(outside, name), `${name}\n`)
        chownSync(join(outside, name), owner, owner)
        chmodSync(join(outside, name), mode)
        linkSync(join(outside, name), join(tree, name))
        return join(tree, name)
      }
      const own = file('own-read-only', user, 0o555)
      const shared = file('group-writable', 0, 0o664)
      const others = file('root-only', 0, 0o644)
      expect(separate([own, shared, others], { uid: user, gid: user })).toEqual({ copied: 2 })
      expect([own, shared, others].map((path) => lstatSync(path).nlink)).toEqual([1, 1, 2])
      expect(lstatSync(own)).toMatchObject({ uid: user, mode: expect.any(Number) })
      expect(lstatSync(own).mode & 0o777).toBe(0o555)
    }
  )
  it.skipIf(process.getuid?.() !== 0)(
    "refuse a copy that failed only where the jail's user surely could write the file",
    (context) => {
      const { tree, outside } = place()
      const user = 4242
      const folder = join(tree, 'build-cache')
      mkdirSync(folder)
      const file = (name: string, owner: number) => {
        writeFileSync(join(outside, name), `${name}\n`)
        chownSync(join(outside, name), owner, owner)
        chmodSync(join(outside, name), 0o664)
        linkSync(join(outside, name), join(folder, name))
        return join(folder, name)
      }
      // A root step's output, group-writable for root's group alone; and one of the user's.
      const roots = file('roots', 0)
      const own = file('own', user)
      try {
        execFileSync('chattr', ['+i', folder], { stdio: 'ignore' })
      } catch {
        return context.skip('chattr +i does not work here')
      }
      try {
        expect(separate([roots], { uid: user, gid: user })).toEqual({ copied: 0 })
        expect(separate([roots, own], { uid: user, gid: user })).toEqual({ copied: 0, failed: own })
      } finally {
        execFileSync('chattr', ['-i', folder], { stdio: 'ignore' })
      }
    }
  )
})
