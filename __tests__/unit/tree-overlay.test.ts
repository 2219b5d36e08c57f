/**
 * The work tree as an overlay (src/sandbox/overlay.ts): a command runs on a real overlayfs mount
 * of a real folder, and what it did is carried into the folder exactly, with a record of each
 * path. The commands here run bare in the overlay's mount namespace (the jail is tested
 * elsewhere); the overlay needs root and util-linux.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { TreeOverlay } from '../../src/sandbox/index.js'
import { skipWithout } from '../support/sandbox-needs.js'

const which = (name: string) =>
  spawnSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin command -v ${name}`], {
    encoding: 'utf8'
  }).stdout.trim() || undefined
const programs = { unshare: which('unshare'), mount: which('mount'), find: which('find') }

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** A work tree with a few files, and the overlay's folder beside it (same file system). */
function tree(files: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-overlay-'))
  folders.push(root)
  const work = join(root, 'work')
  mkdirSync(join(work, '.git'), { recursive: true })
  writeFileSync(join(work, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(work, path, '..'), { recursive: true })
    writeFileSync(join(work, path), text)
  }
  const overlay = TreeOverlay.create(join(root, 'overlay'), work, programs, ['logs'])
  if (!overlay) throw new Error('no overlay on this machine')
  return { root, work, overlay }
}

/** Runs `script` in the overlay (from the work tree), then settles it. */
function run(overlay: TreeOverlay, script: string, settle: { discard?: boolean } = {}) {
  const spec = overlay.wrap({
    file: '/bin/sh',
    args: ['-c', script],
    env: { PATH: '/usr/bin:/bin' }
  })
  const done = spawnSync(spec.file, spec.args, { cwd: overlay.workTree, encoding: 'utf8' })
  overlay.settle(settle.discard)
  return done
}

describe.skipIf(skipWithout('unshare'))('the work tree as an overlay', () => {
  it('carries new, changed and deleted files into the tree, and records each', () => {
    const { work, overlay } = tree({ 'a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/c.txt': 'c\n' })
    const done = run(
      overlay,
      'echo new > n.txt && mkdir -p out/deep && echo o > out/deep/o.txt && echo more >> a.txt && rm src/b.txt && cat src/c.txt'
    )
    expect(done.status).toBe(0)
    expect(done.stdout).toBe('c\n')
    expect(readFileSync(join(work, 'n.txt'), 'utf8')).toBe('new\n')
    expect(readFileSync(join(work, 'out/deep/o.txt'), 'utf8')).toBe('o\n')
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('a\nmore\n')
    expect(existsSync(join(work, 'src/b.txt'))).toBe(false)
    expect(readFileSync(join(work, 'src/c.txt'), 'utf8')).toBe('c\n')
    const { record } = overlay
    expect([...record.touched].sort()).toEqual(['a.txt', 'n.txt', 'out', 'src/b.txt'])
    expect(record.isCreated('n.txt')).toBe(true)
    expect(record.isCreated('out/deep/o.txt')).toBe(true)
    expect(record.isCreated('a.txt')).toBe(false)
    // Files there before that a command deleted or replaced.
    expect([...record.removed].sort()).toEqual(['a.txt', 'src/b.txt'])
  })

  it('leaves the tree alone while the command runs, and entirely when it is dropped', () => {
    const { work, overlay } = tree({ 'a.txt': 'a\n' })
    const done = run(overlay, `echo x > a.txt && echo y > new.txt && cat ${join(work, 'a.txt')}`, {
      discard: true
    })
    expect(done.stdout).toBe('x\n')
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('a\n')
    expect(existsSync(join(work, 'new.txt'))).toBe(false)
    expect(overlay.record.touched.size).toBe(0)
  })

  it('leaves nothing in the tree when the wrapper dies before its listing (a kill)', () => {
    const { work, overlay } = tree({ 'a.txt': 'a\n' })
    run(overlay, 'echo x > a.txt && echo y > new.txt && kill -9 $PPID')
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('a\n')
    expect(existsSync(join(work, 'new.txt'))).toBe(false)
    expect(overlay.record.touched.size).toBe(0)
  })

  it("takes a command's own exit status 125 for the command's, the wrapper having listed", () => {
    const { work, overlay } = tree({ 'a.txt': 'a\n' })
    const spec = overlay.wrap({ file: '/bin/sh', args: ['-c', 'exit 125'], env: {} })
    const done = spawnSync(spec.file, spec.args, { cwd: work })
    expect(done.status).toBe(125)
    expect(() => overlay.settle(false, done.status)).not.toThrow()
  })

  it('is ENVIRONMENT_ERROR when the wrapper cannot write its listing, never the exit status', () => {
    const { work, overlay } = tree({ 'a.txt': 'a\n' })
    const spec = overlay.wrap({ file: '/bin/sh', args: ['-c', 'echo x > a.txt'], env: {} })
    // Where the listing goes is taken (as a full disk would refuse it).
    mkdirSync(join(overlay.upperFolder, '..', 'listing'))
    const done = spawnSync(spec.file, spec.args, { cwd: work })
    expect(done.status).toBe(125)
    expect(() => overlay.settle(false, done.status)).toThrow(
      expect.objectContaining({ code: 'ENVIRONMENT_ERROR' })
    )
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('a\n')
  })

  it('is a full disk (ENOSPC) when the command used up the inodes under the overlay', () => {
    const disk = mkdtempSync(join(tmpdir(), 'patchsmith-inodes-'))
    execFileSync('mount', [
      '-t',
      'tmpfs',
      '-o',
      'size=16m,nr_inodes=200',
      'patchsmith-inodes',
      disk
    ])
    try {
      const work = join(disk, 'work')
      mkdirSync(join(work, '.git'), { recursive: true })
      writeFileSync(join(work, 'a.txt'), 'a\n')
      const overlay = TreeOverlay.create(join(disk, 'overlay'), work, programs)!
      const fill = 'echo x > a.txt; i=0; while : > f$i 2>/dev/null; do i=$((i+1)); done; exit 1'
      const spec = overlay.wrap({ file: '/bin/sh', args: ['-c', fill], env: {} })
      const done = spawnSync(spec.file, spec.args, { cwd: work })
      expect(() => overlay.settle(false, done.status)).toThrow(
        expect.objectContaining({ code: 'ENOSPC' })
      )
      expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('a\n')
    } finally {
      execFileSync('umount', ['-l', disk])
      rmSync(disk, { recursive: true, force: true })
    }
  })

  it("carries a file as a fresh copy; one that cannot be made leaves the tree's file as it was", () => {
    const { root, work, overlay } = tree({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    // The copy's place taken by a folder that is not empty: the first copy fails.
    const blocked = join(root, 'overlay', '1', 'carrying', 'x')
    expect(() =>
      run(overlay, `echo changed > a.txt && echo changed > b.txt && mkdir -p ${blocked}`)
    ).toThrow()
    expect(['a.txt', 'b.txt'].map((name) => readFileSync(join(work, name), 'utf8'))).toEqual([
      'a\n',
      'b\n'
    ])
  })

  it('lists many folders at once and merges them all', () => {
    const { work, overlay } = tree({ 'keep/a.txt': 'a\n', 'gone/b.txt': 'b\n' })
    run(
      overlay,
      'for i in $(seq 1 200); do mkdir -p keep/d$i/e && echo $i > keep/d$i/e/f; done; rm -rf gone'
    )
    expect(readFileSync(join(work, 'keep/d137/e/f'), 'utf8')).toBe('137\n')
    expect(readFileSync(join(work, 'keep/a.txt'), 'utf8')).toBe('a\n')
    expect(existsSync(join(work, 'gone'))).toBe(false)
    expect(overlay.record.isCreated('keep/d5/e/f')).toBe(true)
    expect([...overlay.record.removed]).toEqual(['gone/b.txt'])
  })

  it('empties a folder that was deleted and made again (an opaque folder), keeping only the new', () => {
    const { work, overlay } = tree({
      'dist/old.js': '1',
      'dist/keep.js': '2',
      'dist/sub/x.js': '3'
    })
    run(overlay, 'rm -rf dist && mkdir dist && echo fresh > dist/keep.js')
    expect(readFileSync(join(work, 'dist/keep.js'), 'utf8')).toBe('fresh\n')
    expect(existsSync(join(work, 'dist/old.js'))).toBe(false)
    expect(existsSync(join(work, 'dist/sub'))).toBe(false)
    expect([...overlay.record.removed].sort()).toEqual([
      'dist/keep.js',
      'dist/old.js',
      'dist/sub/x.js'
    ])
    // keep.js was there before: replaced, not made by the command.
    expect(overlay.record.isCreated('dist/keep.js')).toBe(false)
  })

  it('replaces a file by a folder and a folder by a file', () => {
    const { work, overlay } = tree({ f: 'file\n', 'd/inner.txt': 'inner\n' })
    run(overlay, 'rm f && mkdir f && echo in > f/x && rm -rf d && echo now-a-file > d')
    expect(readFileSync(join(work, 'f/x'), 'utf8')).toBe('in\n')
    expect(readFileSync(join(work, 'd'), 'utf8')).toBe('now-a-file\n')
    expect([...overlay.record.removed].sort()).toEqual(['d/inner.txt', 'f'])
    // Both are the command's own: the watch removes them when they are not the change.
    expect(overlay.record.isCreated('f/x')).toBe(true)
    expect(overlay.record.isCreated('d')).toBe(true)
  })

  it('never follows a link: a link the tree has is replaced, one the command made is moved as a link', () => {
    const { root, work, overlay } = tree({ 'a.txt': 'a\n' })
    const outside = join(root, 'outside')
    mkdirSync(outside)
    writeFileSync(join(outside, 'secret'), 'runner\n')
    symlinkSync(outside, join(work, 'linked'))
    // Inside, the link points at the host folder, which is not the overlay: the write there is
    // the command's own business (the jail hides such folders). What the merge does with it is
    // the point: it replaces the link by the folder the command made, never writing through it.
    run(
      overlay,
      `rm linked && mkdir linked && echo planted > linked/secret && ln -s ${outside} made`
    )
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('runner\n')
    expect(lstatSync(join(work, 'linked')).isDirectory()).toBe(true)
    expect(readFileSync(join(work, 'linked/secret'), 'utf8')).toBe('planted\n')
    expect(readlinkSync(join(work, 'made'))).toBe(outside)
  })

  it("never deletes git's folder or the run's own, whatever the command deleted", () => {
    const { work, overlay } = tree({ 'logs/01-build.txt': 'log\n', 'a.txt': 'a\n' })
    run(overlay, 'rm -rf .git logs a.txt')
    expect(readFileSync(join(work, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n')
    expect(readFileSync(join(work, 'logs/01-build.txt'), 'utf8')).toBe('log\n')
    expect(existsSync(join(work, 'a.txt'))).toBe(false)
  })

  it('copies a whole file up on chmod (no data-less upper file), and carries the mode', () => {
    const { work, overlay } = tree({ 'run.sh': 'echo hi\n' })
    run(overlay, 'chmod 755 run.sh')
    expect(readFileSync(join(work, 'run.sh'), 'utf8')).toBe('echo hi\n')
    expect(statSync(join(work, 'run.sh')).mode & 0o777).toBe(0o755)
  })

  it('lets a command move a folder of the tree (by copy), and carries the result', () => {
    const { work, overlay } = tree({ 'old/a.txt': 'a\n', 'old/b/c.txt': 'c\n' })
    const done = run(overlay, 'mv old new')
    expect(done.status).toBe(0)
    expect(existsSync(join(work, 'old'))).toBe(false)
    expect(readFileSync(join(work, 'new/b/c.txt'), 'utf8')).toBe('c\n')
  })

  it('carries a folder mode change', () => {
    const { work, overlay } = tree({ 'd/a.txt': 'a\n' })
    chmodSync(join(work, 'd'), 0o755)
    run(overlay, 'chmod 700 d')
    expect(statSync(join(work, 'd')).mode & 0o777).toBe(0o700)
    expect(overlay.record.touched.has('d')).toBe(true)
  })

  it('merges nothing when a name is not UTF-8, and says which', () => {
    const { work, overlay } = tree({ 'a.txt': 'a\n' })
    run(overlay, `echo x > a.txt && echo y > "$(printf 'bad\\377name')"`)
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('a\n')
    expect(overlay.record.unreadable).toHaveLength(1)
  })

  it('merges nothing when the command deleted a name that is not UTF-8 (the listing cannot hold it)', () => {
    const { work, overlay } = tree({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' })
    const bad = Buffer.concat([Buffer.from(join(work, 'sub', 'bad')), Buffer.from([0xff])])
    writeFileSync(bad, 'x\n')
    run(overlay, 'echo planted > aaa.txt && rm a.txt sub/bad*')
    expect(existsSync(join(work, 'aaa.txt'))).toBe(false)
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('a\n')
    expect(readFileSync(bad, 'utf8')).toBe('x\n')
    expect(overlay.record.unreadable).toHaveLength(1)
    // The same under a folder made again (no whiteout: the folder is opaque).
    const again = tree({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' })
    writeFileSync(
      Buffer.concat([Buffer.from(join(again.work, 'sub', 'bad')), Buffer.from([0xff])]),
      'x\n'
    )
    run(again.overlay, 'echo planted > aaa.txt && rm -rf sub && mkdir sub')
    expect(existsSync(join(again.work, 'aaa.txt'))).toBe(false)
    expect(again.overlay.record.unreadable).toHaveLength(1)
  })

  it('settles and is removed however deep the command nested its folders (past a path length)', () => {
    const { root, work, overlay } = tree({ 'a.txt': 'a\n' })
    const deep =
      'mkdir deep && cd deep && for i in $(seq 1 1200); do mkdir aaaa && cd aaaa || exit 9; done'
    // Dropped: the upper goes although Node cannot remove it (find does).
    run(overlay, `echo planted > planted.txt && (${deep})`, { discard: true })
    expect(existsSync(join(root, 'overlay', '1'))).toBe(false)
    expect(existsSync(join(work, 'deep'))).toBe(false)
    // Merged: the deep folder moves in whole, as the command's own creation (the watch's).
    run(overlay, `echo planted > planted.txt && (${deep})`)
    expect(overlay.record.isCreated('planted.txt')).toBe(true)
    expect(overlay.record.isCreated('deep')).toBe(true)
    expect(existsSync(join(root, 'overlay', '2'))).toBe(false)
    execFileSync(programs.find!, [join(work, 'deep'), '-delete'])
    overlay.dispose()
    expect(existsSync(join(root, 'overlay'))).toBe(false)
  })

  it('carries validation-keep output beside a chain nested past what the wrapper lists, which it drops and names', () => {
    const root = mkdtempSync(join(tmpdir(), 'patchsmith-overlay-'))
    folders.push(root)
    const work = join(root, 'work')
    mkdirSync(join(work, '.git'), { recursive: true })
    // A folder of the user's already past the listed length, which the command writes into.
    const mine = 'dist/' + Array.from({ length: 215 }, () => 'u0123456789abcdef').join('/')
    mkdirSync(join(work, mine), { recursive: true })
    const carry = {
      carries: (path: string) => path.startsWith('dist/'),
      mayHold: (folder: string) => folder === 'dist' || folder.startsWith('dist/')
    }
    const overlay = TreeOverlay.create(join(root, 'overlay'), work, programs, [], carry)!
    const chain = (name: string) =>
      `i=0; while [ $i -lt 260 ]; do mkdir ${name} && cd ${name} || break; i=$((i+1)); done; echo $i >&2; echo bottom > f`
    const done = run(
      overlay,
      `mkdir -p dist && echo ok > dist/top.js && (cd dist && ${chain('d0123456789abcdef')}) && (cd '${mine}' && echo deep > mine.txt && ${chain('v')})`
    )
    expect(done.status, done.stderr).toBe(0)
    expect(readFileSync(join(work, 'dist/top.js'), 'utf8')).toBe('ok\n')
    expect(existsSync(join(work, 'dist/d0123456789abcdef'))).toBe(false)
    // Made level by level while listed, each taken away again once nothing in it was carried.
    const tops = overlay.record.droppedTops
    expect(tops.some((path) => path.startsWith('dist/d0123456789abcdef/'))).toBe(true)
    const dropped = [...overlay.record.dropped]
    expect(
      dropped.some((path) => path.startsWith(`${mine.split('/').slice(0, 200).join('/')}/`))
    ).toBe(true)
    expect(overlay.record.unreadable).toEqual([])
    overlay.dispose()
  })

  it('is none where the folder is on another file system than the tree', () => {
    const { work } = tree()
    expect(TreeOverlay.create('/dev/shm/patchsmith-overlay-test', work, programs)).toBeUndefined()
    rmSync('/dev/shm/patchsmith-overlay-test', { recursive: true, force: true })
  })
})
