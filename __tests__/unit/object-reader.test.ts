/**
 * The run's one `git cat-file --batch` (ObjectReader), on real repositories: blobs and trees
 * byte for byte as git stores them, entries as `ls-tree` shows them, missing objects, refused
 * specs, one process for many reads, and SHA-256 repositories.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git.js'
import { blobId, parseTree } from '../../src/git/object-reader.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

function shapes(objectFormat?: 'sha256') {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-objects-'))
  cleanups.push(() => rmSync(root, { recursive: true, force: true }))
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8' }).replace(/\n$/, '')
  git('init', '-q', ...(objectFormat ? [`--object-format=${objectFormat}`] : []), '.')
  git('config', 'user.name', 'T')
  git('config', 'user.email', 't@example.invalid')
  writeFileSync(join(root, 'run.sh'), '#!/bin/sh\n')
  writeFileSync(join(root, 'a b ü.txt'), 'spaces and unicode\n')
  writeFileSync(join(root, 'crlf.txt'), 'one\r\ntwo\r\n\0binary')
  mkdirSync(join(root, 'deep/er'), { recursive: true })
  writeFileSync(join(root, 'deep/er/f.txt'), 'deep\n')
  git('add', '.')
  git('update-index', '--chmod=+x', 'run.sh')
  git('update-index', '--add', '--cacheinfo', `120000,${git('hash-object', '-w', 'crlf.txt')},link`)
  git('update-index', '--add', '--cacheinfo', `160000,${git('hash-object', 'run.sh')},sub`)
  git('commit', '-q', '-m', 'shapes')
  return { root, git, head: git('rev-parse', 'HEAD') }
}

/** `ls-tree` of a folder as the reader lists it: `<mode> <type> <sha>\t<name>`. */
function lsTree(git: (...args: string[]) => string, rev: string): string[] {
  return git('ls-tree', '-z', rev).split('\0').filter(Boolean)
}

describe.each([[undefined], ['sha256' as const]])('ObjectReader (%s)', (format) => {
  it('reads blobs and trees as git stores them, in one process for the whole run', async () => {
    const { root, git: sh, head } = shapes(format)
    const git = await Git.open(root)
    const before = git.processCount
    const blob = await git.objects.read(head, 'crlf.txt')
    expect(blob).toMatchObject({ type: 'blob', sha: sh('rev-parse', 'HEAD:crlf.txt') })
    expect(blob!.content).toEqual(Buffer.from('one\r\ntwo\r\n\0binary'))
    expect((await git.objects.read(head, 'a b ü.txt'))!.content.toString()).toBe(
      'spaces and unicode\n'
    )
    const entries = (await git.objects.tree(head))!
    expect(entries.map((e) => `${e.mode} ${e.type} ${e.sha}\t${e.name}`)).toEqual(
      lsTree(sh, 'HEAD')
    )
    expect(entries.find((e) => e.name === 'link')?.mode).toBe('120000')
    expect(entries.find((e) => e.name === 'run.sh')?.mode).toBe('100755')
    expect(entries.find((e) => e.name === 'sub')).toMatchObject({ mode: '160000', type: 'commit' })
    const deep = (await git.objects.tree(head, 'deep/er'))!
    expect(deep.map((e) => `${e.mode} ${e.type} ${e.sha}\t${e.name}`)).toEqual(
      lsTree(sh, 'HEAD:deep/er')
    )
    expect(await git.objects.tree('HEAD', 'deep')).toHaveLength(1)
    // One process for every read above.
    expect(git.processCount - before).toBe(2) // the config listing and the reader
    git.objects.close()
  })

  it('answers undefined for what is not there, and skips content over maxBytes', async () => {
    const { root, head } = shapes(format)
    const git = await Git.open(root)
    expect(await git.objects.read(head, 'nope.txt')).toBeUndefined()
    expect(await git.objects.read(head, 'run.sh/x')).toBeUndefined()
    expect(await git.objects.tree(head, 'run.sh')).toBeUndefined()
    expect(await git.objects.tree(head, 'sub')).toBeUndefined()
    expect(await git.objects.read('0'.repeat(head.length))).toBeUndefined()
    const big = await git.objects.read(head, 'crlf.txt', { maxBytes: 3 })
    expect(big).toMatchObject({ type: 'blob', size: 17, content: Buffer.alloc(0) })
    // The stream stays in step after a skipped content.
    expect((await git.objects.read(head, 'run.sh'))!.content.toString()).toBe('#!/bin/sh\n')
    const blobs = await git.objects.blobs(head, ['run.sh', 'nope', 'deep', 'a b ü.txt'], 100)
    expect([...blobs.keys()]).toEqual(['run.sh', 'a b ü.txt'])
    git.objects.close()
  })

  it('computes blob ids as git does, and knows which it has', async () => {
    const { root, git: sh, head } = shapes(format)
    const git = await Git.open(root)
    const ids = ['#!/bin/sh\n', 'not stored\n'].map((text) =>
      blobId(Buffer.from(text), head.length)
    )
    expect(ids[0]).toBe(sh('rev-parse', 'HEAD:run.sh'))
    expect(await git.objects.has(ids)).toEqual([true, false])
    // An object written by another process after the reader started is seen.
    writeFileSync(join(root, 'new.txt'), 'not stored\n')
    expect(sh('hash-object', '-w', 'new.txt')).toBe(ids[1])
    expect(await git.objects.has(ids)).toEqual([true, true])
    git.objects.close()
  })
})

describe('ObjectReader requests', () => {
  it('refuses a spec that would be another request, an option or a relative path', async () => {
    const repo = createRepo({ prefix: 'objects', files: { 'a.txt': 'a\n' } })
    cleanups.push(() => repo.cleanup())
    const git = await Git.open(repo.dir)
    const head = repo.git('rev-parse', 'HEAD')
    for (const path of ['a.txt\nHEAD:a.txt', 'a.txt\r', '../x', './a.txt', '..', 'a\0b'])
      await expect(git.objects.read(head, path)).rejects.toThrow(/cannot be asked for/)
    for (const rev of ['--batch-all-objects', 'main', 'HEAD~1', `${head}^{tree}`, ''])
      await expect(git.objects.read(rev, 'a.txt')).rejects.toThrow(/Not an object id/)
    // Nothing was sent: the reader still answers in step.
    expect((await git.objects.read(head, 'a.txt'))!.content.toString()).toBe('a\n')
    git.objects.close()
  })

  it('starts another process when one was closed or died, and reads in order when asked at once', async () => {
    const repo = createRepo({ prefix: 'objects', files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } })
    cleanups.push(() => repo.cleanup())
    const git = await Git.open(repo.dir)
    const many = await Promise.all(
      Array.from({ length: 50 }, (_, i) => git.objects.read('HEAD', i % 2 ? 'a.txt' : 'b.txt'))
    )
    expect(many.map((o) => o!.content.toString())).toEqual(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? 'a\n' : 'b\n'))
    )
    const counted = git.processCount
    git.objects.close()
    expect((await git.objects.read('HEAD', 'a.txt'))!.content.toString()).toBe('a\n')
    expect(git.processCount).toBe(counted + 1)
    git.objects.close()
  })

  it('parses what a malformed tree holds as an error, not as entries', () => {
    expect(() => parseTree(Buffer.from('100644 name-without-id'), 20)).toThrow(/does not parse/)
    expect(() =>
      parseTree(Buffer.concat([Buffer.from('100644 a\0'), Buffer.alloc(19)]), 20)
    ).toThrow()
    const odd = parseTree(Buffer.concat([Buffer.from('100664 a\0'), Buffer.alloc(20, 1)]), 20)
    expect(odd).toEqual([{ mode: '100644', type: 'blob', sha: '01'.repeat(20), name: 'a' }])
  })
})

describe('ObjectReader when git cannot start reading', () => {
  it("fails as git's command failure with git's words, never a bare EPIPE (a config it cannot parse)", async () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'objects-bad' })
    cleanups.push(() => repo.cleanup())
    const git = await Git.open(repo.dir)
    writeFileSync(join(repo.dir, '.git', 'config'), '[core\n', { flag: 'a' })
    for (let i = 0; i < 3; i++) {
      const error = await git.objects.read('HEAD', 'a.txt').then(
        () => undefined,
        (caught: unknown) =>
          caught as { code?: string; details?: { stderr?: string; rule?: string } }
      )
      expect(error?.code).toBe('ENVIRONMENT_ERROR')
      expect(error?.details?.rule).toBe('git-config-unreadable')
      expect(error?.details?.stderr).toContain('bad config')
    }
    git.objects.close()
  })
})
