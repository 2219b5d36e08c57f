import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { afterEach, expect, it } from 'vitest'
import { ChangeObjects } from '../../src/change/change-objects.js'
import { Git } from '../../src/git/index.js'
import { createRepo } from '../support/repo.js'

/** The objects a hooked commit's change stands on (src/change/change-objects.ts). */

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

it('names an object whose bytes no longer hash to its name, and puts its loose file back', async () => {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'change-objects' })
  cleanups.push(() => repo.cleanup())
  writeFileSync(join(repo.dir, 'a.txt'), 'approved\n')
  repo.git('add', 'a.txt')
  const git = await Git.open(repo.dir)
  cleanups.push(() => git.objects.close())
  const sha = repo.git('rev-parse', ':a.txt')
  const objects = await ChangeObjects.take(git)
  const file = join(repo.dir, '.git/objects', sha.slice(0, 2), sha.slice(2))
  chmodSync(file, 0o644)
  writeFileSync(file, deflateSync(Buffer.from('blob 5\0evil\n')))
  expect(await objects.forged(git)).toEqual([sha])
  objects.putBack()
  expect(await objects.forged(git)).toEqual([])
  expect(repo.git('cat-file', '-p', sha)).toBe('approved')
})
