/**
 * The snapshot's listing after validation, by finds side by side over the root's entries: the
 * same entries as one find would list (links, fifos, odd names, a chain past PATH_MAX, a new
 * root entry), each folder before all it holds and those together (the put-back skips what a
 * removed folder holds by that order), and one find where a root name is not UTF-8.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { listChanged, listFolders } from '../../src/policy/tree-listing.js'

const cleanups = cleanupAfterEach()

function tree(): { root: string; mark: string } {
  const top = mkdtempSync(join(tmpdir(), 'patchsmith-split-'))
  // find deletes from inside each folder: the chain past PATH_MAX goes too.
  cleanups.push(() => execFileSync('find', [top, '-delete']))
  const root = join(top, 'work')
  for (const folder of ['.git', 'big/a/b', 'big/c', 'mid/d', 'small'])
    mkdirSync(join(root, folder), { recursive: true })
  for (let i = 0; i < 40; i++) writeFileSync(join(root, 'big/a', `f${i}`), 'x')
  writeFileSync(join(root, 'small/s'), 'x')
  const mark = join(top, 'mark')
  writeFileSync(mark, '')
  execFileSync('touch', ['-d', '2000-01-01', mark])
  return { root, mark }
}

function weightsOf(folders: Map<string, { size: number }>): Map<string, number> {
  const weights = new Map<string, number>()
  for (const [path, folder] of folders) {
    const top = path.split('/', 1)[0]!
    weights.set(top, (weights.get(top) ?? 0) + folder.size)
  }
  return weights
}

/** Each folder is followed by all it holds, before anything else. */
function foldersFirst(paths: string[]): boolean {
  return paths.every((path, i) => {
    const under = paths.filter((other) => other.startsWith(`${path}/`))
    return under.every((inner, j) => paths[i + 1 + j] === inner)
  })
}

describe.runIf(availableParallelism() >= 2)('the listing after validation, split', () => {
  it('lists what one find lists, each folder before all it holds', async () => {
    const { root, mark } = tree()
    symlinkSync('/', join(root, 'big/c/host-root'))
    execFileSync('mkfifo', [join(root, 'mid/d/pipe')])
    writeFileSync(join(root, '-name'), 'x')
    writeFileSync(join(root, 'mid/new\nline'), 'x')
    mkdirSync(join(root, 'new/deep'), { recursive: true })
    const deep =
      'import os; os.chdir("mid"); [(os.mkdir("d" * 200), os.chdir("d" * 200)) for i in range(25)]; open("end", "w").write("x")'
    execFileSync('python3', ['-c', deep], { cwd: root })
    const weights = weightsOf(await listFolders(root, ['.git']))
    const one = await listChanged(root, ['.git'], mark, false)
    const split = await listChanged(root, ['.git'], mark, false, weights)
    expect([...split.keys()].sort()).toEqual([...one.keys()].sort())
    expect([...split].sort()).toEqual([...one].sort())
    expect(split.has('.git')).toBe(false)
    expect(split.has('mid/new\nline')).toBe(true)
    expect(split.has('-name')).toBe(true)
    expect(split.get('big/c/host-root')?.[0]).toBe('l')
    expect(split.get('mid/d/pipe')?.[0]).toBe('p')
    expect([...split.keys()].some((path) => path.endsWith('/end'))).toBe(true)
    expect(foldersFirst([...split.keys()])).toBe(true)
  })

  it('falls back to one find where a root name is not UTF-8, and still lists it', async () => {
    const { root, mark } = tree()
    const odd = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0xff, 0x66])])
    writeFileSync(odd, 'x')
    const weights = weightsOf(await listFolders(root, ['.git']))
    const split = await listChanged(root, ['.git'], mark, false, weights)
    expect(split.has(Buffer.from([0xff, 0x66]).toString('latin1'))).toBe(true)
    expect(foldersFirst([...split.keys()])).toBe(true)
  })
})
