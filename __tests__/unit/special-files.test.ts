/**
 * The special files validation left, removed between two of its commands (before git resets or
 * applies mid-round) as after the round: those it made, however named or deep, and those a
 * folder it moved into view held with their old ctimes (a fifo planted earlier in an ignored
 * folder); never the user's own, which it did not touch.
 */
import { execFileSync } from 'node:child_process'
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/index.js'
import { TreeSnapshot } from '../../src/policy/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

function fifoRepo() {
  const repo = createRepo({ files: { '.gitignore': 'node_modules/\n', 'a.txt': 'a\n' } })
  cleanups.push(() => repo.cleanup())
  // Before rmSync, which cannot name a path past PATH_MAX: find deletes from inside.
  cleanups.push(() => execFileSync('find', [repo.root, '-delete']))
  const sh = (script: string) => execFileSync('sh', ['-c', script], { cwd: repo.dir })
  // Before the round: a fifo of the user's, and one planted in an ignored folder.
  sh('mkfifo mine && mkdir -p node_modules/evil && mkfifo node_modules/evil/.gitattributes')
  return { repo, sh }
}

const fifos = (dir: string) =>
  execFileSync('find', ['.', '-path', './.git', '-prune', '-o', '-type', 'p', '-print'], {
    cwd: dir,
    encoding: 'utf8'
  })
    .split('\n')
    .filter(Boolean)
    .sort()

describe('special files validation leaves, mid-round', () => {
  it('removes those it made or moved into view, keeps the user’s, and names them after', async () => {
    const { repo, sh } = fifoRepo()
    const snapshot = await TreeSnapshot.take(repo.dir, ['.git'])
    sh(
      [
        'mkfifo .gitattributes',
        `mkdir "$(printf '\\377')" && mkfifo "$(printf '\\377')/.gitignore"`,
        'mv node_modules/evil moved',
        'mkdir -p a/b && mkfifo a/b/.gitattributes && chmod 000 a/b'
      ].join(' && ')
    )
    await snapshot.dropSpecialFiles()
    expect(fifos(repo.dir)).toEqual(['./mine'])
    const removed = await snapshot.putBack(await Git.open(repo.dir), [], () => false)
    expect(removed).toEqual(expect.arrayContaining(['.gitattributes', 'a', 'moved']))
    expect(removed).toHaveLength(4)
    expect(lstatSync(join(repo.dir, 'mine')).isFIFO()).toBe(true)
  })

  it('reaches a fifo past what find can start at', async () => {
    const { repo } = fifoRepo()
    const snapshot = await TreeSnapshot.take(repo.dir, ['.git'])
    // 20 folders of 200 bytes and one of 63: `x…/…/y…/.gitignore` is 4 094 bytes.
    const deep = `const fs = require('fs'), x = 'x'.repeat(200), y = 'y'.repeat(63)
for (let i = 0; i < 20; i++) { fs.mkdirSync(x); process.chdir(x) }
fs.mkdirSync(y); process.chdir(y)
require('child_process').execFileSync('mkfifo', ['.gitignore'])`
    execFileSync(process.execPath, ['-e', deep], { cwd: repo.dir })
    expect(fifos(repo.dir)).toHaveLength(3)
    await snapshot.dropSpecialFiles()
    expect(fifos(repo.dir)).toEqual(['./mine', './node_modules/evil/.gitattributes'])
  })
})
