/**
 * RemoteRefFile (git/remote-ref-file.ts) against a real bare origin: a file under a ref of its
 * own, written by compare-and-swap; a write that lost the race (the lease, or origin holding the
 * ref's lock for another push) says so instead of failing, and nothing else is taken for one.
 */
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git, RemoteRefFile } from '../../src/git/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()
const REF = 'refs/patchsmith/budget'

async function world() {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'ref-file' })
  cleanups.push(() => repo.cleanup())
  const file = new RemoteRefFile(await Git.open(repo.dir), REF)
  return { repo, file }
}

describe('RemoteRefFile', () => {
  it('reads nothing where there is no ref, then what it wrote, as a parentless commit of one file', async () => {
    const { repo, file } = await world()
    expect(await file.read()).toEqual({})
    expect(await file.write('one\n', {})).toBe(true)
    const read = await file.read()
    expect(read).toEqual({ oid: repo.gitOrigin('rev-parse', REF), text: 'one\n' })
    expect(repo.gitOrigin('rev-list', '--count', REF)).toBe('1')
    expect(repo.gitOrigin('ls-tree', '--name-only', REF)).toBe('ledger.json')
    // Not a branch: nothing under refs/heads changed.
    expect(repo.gitOrigin('for-each-ref', '--format=%(refname)', 'refs/heads')).toBe(
      'refs/heads/main'
    )
  })

  it('writes only over the version it read: a stale one loses, and so does one origin has locked', async () => {
    const { repo, file } = await world()
    expect(await file.write('one\n', {})).toBe(true)
    const first = await file.read()
    // Someone else created the ref first, then moved it.
    expect(await file.write('late\n', {})).toBe(false)
    expect(await file.write('two\n', first)).toBe(true)
    expect(await file.write('stale\n', first)).toBe(false)
    const second = await file.read()
    expect(second.text).toBe('two\n')
    // Another push is updating the ref right now: origin holds its lock.
    const lock = join(repo.origin, `${REF}.lock`)
    writeFileSync(lock, '')
    expect(await file.write('three\n', second)).toBe(false)
    rmSync(lock)
    expect(await file.write('three\n', second)).toBe(true)
    expect((await file.read()).text).toBe('three\n')
  })

  it('throws when origin refuses for another reason, and refuses refs that are branches', async () => {
    const { repo, file } = await world()
    writeFileSync(join(repo.origin, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 1\n', {
      mode: 0o755
    })
    await expect(file.write('one\n', {})).rejects.toMatchObject({ code: 'PERMISSION_DENIED' })
    const git = await Git.open(repo.dir)
    expect(() => new RemoteRefFile(git, 'refs/heads/budget')).toThrow(/Not a ref for a file/)
  })
})
