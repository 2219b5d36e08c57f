import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { afterEach, expect, it } from 'vitest'
import { ObjectQuarantine } from '../../src/change/change-objects.js'
import { Git } from '../../src/git/index.js'
import { createRepo } from '../support/repo.js'

/** Where a hooked commit writes its objects (src/change/change-objects.ts). */

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

async function quarantined() {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'change-objects' })
  cleanups.push(() => repo.cleanup())
  const git = await Git.open(repo.dir)
  cleanups.push(() => git.objects.close())
  const store = join(repo.dir, '.git', 'objects')
  const quarantine = ObjectQuarantine.create(join(repo.dir, '.git'), store)
  cleanups.push(() => quarantine.dispose())
  /** `git hash-object -w` as a hook would run it: into the quarantine. */
  const write = (content: string) =>
    execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: repo.dir,
      input: content,
      env: { ...process.env, ...quarantine.env }
    })
      .toString()
      .trim()
  const inStore = (sha: string) => existsSync(join(store, sha.slice(0, 2), sha.slice(2)))
  return { repo, git, quarantine, write, inStore }
}

it('writes into the quarantine, not the store, and adopts what hashes to its name', async () => {
  const { git, quarantine, write, inStore } = await quarantined()
  const sha = write('made\n')
  expect(inStore(sha)).toBe(false)
  expect(await quarantine.adopt(git, [sha])).toEqual([])
  expect(inStore(sha)).toBe(true)
  expect(execFileSync('git', ['cat-file', '-p', sha], { cwd: git.dir }).toString()).toBe('made\n')
})

it('names an object whose bytes do not hash to its name, writes nothing, and goes whole', async () => {
  const { repo, git, quarantine, write, inStore } = await quarantined()
  const good = write('good\n')
  const sha = write('approved\n')
  const file = join(repo.dir, '.git', quarantine.name, sha.slice(0, 2), sha.slice(2))
  mkdirSync(join(file, '..'), { recursive: true })
  rmSync(file, { force: true })
  writeFileSync(file, deflateSync(Buffer.from('blob 5\0evil\n')))
  expect(await quarantine.adopt(git, [good, sha])).toEqual([sha])
  expect(inStore(good)).toBe(false)
  expect(inStore(sha)).toBe(false)
  quarantine.dispose()
  expect(existsSync(join(repo.dir, '.git', quarantine.name))).toBe(false)
})
