import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { indexGitlinks } from '../../src/git/index-gitlinks.js'

// Real index files written by git; git's own `ls-files --stage` is the oracle.
let dir: string
const git = (...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
const index = () => join(dir, '.git', 'index')
const version = () => readFileSync(index()).readUInt32BE(4)
const gitsLinks = () =>
  git('ls-files', '--stage', '-z')
    .split('\0')
    .filter((line) => line.startsWith('160000 '))
    .map((line) => line.slice(line.indexOf('\t') + 1))
    .sort()

function init(format: 'sha1' | 'sha256' = 'sha1') {
  git('init', '-q', `--object-format=${format}`)
  const blob = execFileSync('git', ['-C', dir, 'hash-object', '-w', '--stdin'], {
    input: 'x\n',
    encoding: 'utf8'
  }).trim()
  const link = (n: number) => String(n).repeat(blob.length)
  return {
    file: (path: string) => git('update-index', '--add', '--cacheinfo', `100644,${blob},${path}`),
    gitlink: (path: string, n = 1) =>
      git('update-index', '--add', '--cacheinfo', `160000,${link(n)},${path}`)
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'index-gitlinks-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

// Paths sharing long prefixes, so version 4 strips more than 127 bytes (a two-byte varint).
const deep = `${'a'.repeat(100)}/${'b'.repeat(100)}`
const paths = [
  `${deep}/c/file1.txt`,
  `${deep}/c/file2.txt`,
  `${deep}/c/sub`,
  `${deep}/c/zz.txt`,
  `${deep}/d`,
  'm/x.txt',
  'n-sub',
  `zz/${'q'.repeat(150)}/1.txt`,
  `zz/${'q'.repeat(150)}/2`,
  'zzz.txt'
]
const links = [`${deep}/c/sub`, `${deep}/d`, 'n-sub', `zz/${'q'.repeat(150)}/2`]

function fill(add: ReturnType<typeof init>) {
  for (const [i, path] of paths.entries())
    if (links.includes(path)) add.gitlink(path, (i % 9) + 1)
    else add.file(path)
}

describe('indexGitlinks', () => {
  it.each([2, 3, 4])('lists the gitlinks of a version %i index, sorted', (v) => {
    const add = init()
    fill(add)
    // Version 3 is the one with extended flags: skip-worktree entries carry one.
    if (v === 3) git('update-index', '--skip-worktree', 'm/x.txt', 'n-sub', paths[0]!)
    git('update-index', '--index-version', String(v))
    expect(version()).toBe(v)
    expect(gitsLinks()).toEqual([...links].sort())
    expect(indexGitlinks(index())).toEqual(gitsLinks())
  })

  it.each([2, 4])('reads a SHA-256 repository index, version %i', (v) => {
    const add = init('sha256')
    fill(add)
    git('update-index', '--index-version', String(v))
    expect(indexGitlinks(index(), 32)).toEqual([...links].sort())
  })

  it.each([2, 4])('reads paths longer than the flags can say (4095 bytes), version %i', (v) => {
    const add = init()
    const long = Array.from({ length: 24 }, (_, i) => `${i}`.padStart(200, 'p')).join('/')
    add.file(`${long}/a.txt`)
    add.gitlink(`${long}/b-sub`)
    add.file(`${long}/c.txt`)
    add.gitlink(`${long}x`)
    add.file('short.txt')
    git('update-index', '--index-version', String(v))
    expect(indexGitlinks(index())).toEqual(gitsLinks())
    expect(indexGitlinks(index())).toEqual([`${long}/b-sub`, `${long}x`])
  })

  it('tells an absent index from an unreadable one', () => {
    const add = init()
    expect(indexGitlinks(index())).toBeUndefined()
    fill(add)
    git('update-index', '--index-version', '4')
    const whole = readFileSync(index())
    for (const bytes of [whole.subarray(0, 11), whole.subarray(0, 200), whole.subarray(0, 400)]) {
      writeFileSync(index(), bytes)
      expect(indexGitlinks(index())).toEqual(['<unreadable index>'])
    }
    const wrong = Buffer.from(whole)
    wrong.writeUInt32BE(5, 4)
    writeFileSync(index(), wrong)
    expect(indexGitlinks(index())).toEqual(['<unreadable index>'])
  })
})

describe('an index read again', () => {
  it('is parsed anew when written in place, even with its size and mtime kept', () => {
    const make = init()
    make.gitlink('aaa')
    make.file('bbb')
    expect(indexGitlinks(index())).toEqual(['aaa'])
    // The same bytes but the gitlink's mode and the file's swapped: same size, mtime set back.
    const before = statSync(index())
    const bytes = readFileSync(index())
    const swapped = Buffer.from(bytes)
    const modeAt = (name: string) => bytes.indexOf(name) - 62 + 24
    swapped.writeUInt32BE(bytes.readUInt32BE(modeAt('bbb')), modeAt('aaa'))
    swapped.writeUInt32BE(bytes.readUInt32BE(modeAt('aaa')), modeAt('bbb'))
    writeFileSync(index(), swapped)
    utimesSync(index(), before.atime, before.mtime)
    expect(indexGitlinks(index())).toEqual(['bbb'])
  })
})
