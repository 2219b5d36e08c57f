/**
 * The snapshot's listing after validation, by finds side by side over the root's entries: the
 * same entries as one find would list (links, fifos, odd names, a chain past PATH_MAX, a new
 * root entry), each folder before all it holds and those together (the put-back skips what a
 * removed folder holds by that order), and one find where a root name is not UTF-8.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { latin1 } from '../../src/policy/tree-find.js'
import { removeAll } from '../../src/policy/tree-fixups.js'
import { listChanged, listFolders, splitStarts } from '../../src/policy/tree-listing.js'

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

/** What each folder of the root and of its folders held, as TreeSnapshot weighs them. */
function weightsOf(folders: Map<string, { size: number }>): Map<string, number> {
  const weights = new Map<string, number>()
  for (const [path, folder] of folders)
    for (const prefix of path.split('/', 2).map((_, i, names) => names.slice(0, i + 1).join('/')))
      weights.set(prefix, (weights.get(prefix) ?? 0) + folder.size)
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

  it('lists the folders before validation by finds side by side: those one find lists, with their modes and inodes', async () => {
    const { root } = tree()
    for (let i = 0; i < 30; i++) mkdirSync(join(root, `big/many/m${i}`), { recursive: true })
    mkdirSync(join(root, 'big/logs/inner'), { recursive: true })
    mkdirSync(join(root, 'new\nline/x'), { recursive: true })
    const deep =
      'import os; os.chdir("mid"); [(os.mkdir("d" * 200), os.chdir("d" * 200)) for i in range(25)]'
    execFileSync('python3', ['-c', deep], { cwd: root })
    mkdirSync(join(root, 'big/c/closed/inside'), { recursive: true })
    chmodSync(join(root, 'big/c/closed'), 0o300)
    const skip = ['.git', 'big/logs']
    expect(splitStarts(root, skip, new Map(), true)?.opened).toContain('big')
    const one = oneFind(root, skip)
    const split = await listFolders(root, skip)
    expect(stamped(split)).toEqual(one)
    expect(split.has('big/c/closed')).toBe(true)
    expect(split.has('big/logs')).toBe(false)
    expect(split.has('new\nline/x')).toBe(true)
    expect(
      [...split.keys()].filter((path) => path.startsWith(`mid/${'d'.repeat(200)}`)).length
    ).toBe(25)
  })

  it('lists a folder named with a byte-order mark as it is, never as the link beside it without one', async () => {
    const { root } = tree()
    const outside = mkdtempSync(join(tmpdir(), 'patchsmith-outside-'))
    cleanups.push(() => execFileSync('rm', ['-rf', outside]))
    mkdirSync(join(outside, 'd1/d2/d3'), { recursive: true })
    mkdirSync(join(root, '\uFEFFlnk/sub/deep'), { recursive: true })
    symlinkSync(outside, join(root, 'lnk'))
    const split = await listFolders(root, ['.git'])
    expect(stamped(split)).toEqual(oneFind(root, ['.git']))
    expect(split.has(latin1('\uFEFFlnk/sub/deep'))).toBe(true)
    expect([...split.keys()].some((path) => path.startsWith('lnk/'))).toBe(false)
    // What validation made under it goes, and nothing at the name without the mark.
    mkdirSync(join(root, 'twin/sub'), { recursive: true })
    mkdirSync(join(root, '\uFEFFtwin/sub'), { recursive: true })
    writeFileSync(join(root, 'twin/sub/made'), 'x')
    writeFileSync(join(root, '\uFEFFtwin/sub/made'), 'x')
    await removeAll(root, [[latin1('\uFEFFtwin/sub/made'), 'f 0 0 0 0 0 644']])
    expect(existsSync(join(root, '\uFEFFtwin/sub/made'))).toBe(false)
    expect(existsSync(join(root, 'twin/sub/made'))).toBe(true)
  })

  it('lists by one find where the folders to start from are too many to name, and prunes a skipped name holding glob characters as that name', async () => {
    const { root } = tree()
    for (let i = 0; i < 1200; i++) mkdirSync(join(root, `${'n'.repeat(200)}${i}`))
    mkdirSync(join(root, 'log[1]/run/x'), { recursive: true })
    mkdirSync(join(root, 'log1/keep/x'), { recursive: true })
    const skip = ['.git', 'log[1]']
    expect(splitStarts(root, skip, new Map(), true)).toBeUndefined()
    const split = await listFolders(root, skip)
    expect(split.size).toBe(1200 + 10)
    expect(split.has('log1/keep/x')).toBe(true)
    expect([...split.keys()].some((path) => path.startsWith('log[1]'))).toBe(false)
    const few = tree().root
    mkdirSync(join(few, 'log[1]/run/x'), { recursive: true })
    mkdirSync(join(few, 'log1/keep/x'), { recursive: true })
    expect(splitStarts(few, skip, new Map(), true)).toBeDefined()
    const listed = await listFolders(few, skip)
    expect(listed.has('log1/keep/x')).toBe(true)
    expect([...listed.keys()].some((path) => path.startsWith('log[1]'))).toBe(false)
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

  it('splits a folder heavier than a share of the finds into its own: the same entries, a skipped folder in it left out, a closed one opened', async () => {
    const { root, mark } = tree()
    for (let i = 0; i < 30; i++) mkdirSync(join(root, `big/many/m${i}`), { recursive: true })
    mkdirSync(join(root, 'big/logs'))
    writeFileSync(join(root, 'big/logs/own.txt'), "the run's own")
    writeFileSync(join(root, 'big/c/inside'), 'x')
    chmodSync(join(root, 'big/c'), 0)
    const skip = ['.git', 'big/logs']
    const weights = weightsOf(await listFolders(root, skip))
    const starts = splitStarts(root, skip, weights)!
    // big holds most of the tree: its folders are started from, never the skipped one.
    expect(starts.opened).toEqual(['big'])
    expect(starts.groups.flat().sort()).toEqual(['big/a', 'big/c', 'big/many', 'mid', 'small'])
    const split = await listChanged(root, skip, mark, true, weights)
    expect(split.has('big/c/inside')).toBe(true)
    expect([...split.keys()].some((path) => path.startsWith('big/logs'))).toBe(false)
    expect(foldersFirst([...split.keys()])).toBe(true)
    const one = await listChanged(root, skip, mark, true)
    expect([...split.keys()]).toEqual([...one.keys()].sort(byName))
    // Stamp for stamp once nothing is closed any more (the first listing opened big/c).
    expect(await listChanged(root, skip, mark, true, weights)).toEqual(one)
  })
})

/** What one find lists of the folders (latin1 paths), with their modes and inodes, sorted. */
function oneFind(root: string, skip: readonly string[]): string[][] {
  const literal = (path: string) => path.replace(/[*?[\]\\]/g, '\\$&')
  const names = skip.flatMap((path, i) => [...(i > 0 ? ['-o'] : []), '-path', `./${literal(path)}`])
  const args = ['.', '-mindepth', '1', '(', ...names, ')', '-prune', '-o', '-type', 'd']
  return execFileSync('find', [...args, '-printf', '%m %i %P\\0'], { cwd: root })
    .toString('latin1')
    .split('\0')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .map(([mode, inode, ...path]) => [path.join(' '), `${mode} ${inode}`])
    .sort()
}

function stamped(folders: Map<string, { mode: string; inode: string }>): string[][] {
  return [...folders].map(([path, folder]) => [path, `${folder.mode} ${folder.inode}`]).sort()
}

/** Name by name: a folder before all it holds. */
function byName(a: string, b: string): number {
  const [x, y] = [a.replaceAll('/', '\0'), b.replaceAll('/', '\0')]
  return x < y ? -1 : x > y ? 1 : 0
}
