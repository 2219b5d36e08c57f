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

  it.each([
    ["printf 'x\\n' > .gitignore", 'rewritten'],
    ['rm .gitignore', 'deleted'],
    ['mv .gitignore g2', 'moved away'],
    ['rm .gitignore && ln -s /dev/null .gitignore', 'replaced by a link'],
    ['rm .gitignore && mkdir .gitignore', 'replaced by a folder']
  ])(
    'refuses, after the round, an ignore file %s (%s) over an old fifo git would now open',
    async (script) => {
      const { repo, sh } = fifoRepo()
      const snapshot = await TreeSnapshot.take(repo.dir, ['.git'])
      sh(`${script} && touch node_modules/evil/x`)
      const git = await Git.open(repo.dir)
      await expect(snapshot.scope(git)).rejects.toMatchObject({
        details: { rule: 'unexpected-changes', problems: ['node_modules/evil/.gitattributes'] }
      })
      await snapshot.putBack(git, [], () => false)
      // The ignore file is back, and the fifo (not validation's to remove) ignored again: git
      // lists no special file, and no longer opens that one.
      expect(repo.read('.gitignore')).toBe('node_modules/\n')
      expect(fifos(repo.dir)).toEqual(['./mine', './node_modules/evil/.gitattributes'])
      const status = ['status', '--porcelain', '--untracked-files=all']
      expect(
        execFileSync('git', status, { cwd: repo.dir, timeout: 20_000, encoding: 'utf8' })
      ).toBe('')
    }
  )

  it('does not take a fifo named .gitignore that was there before for a changed ignore rule', async () => {
    const { repo, sh } = fifoRepo()
    sh('mkdir -p node_modules/old && mkfifo node_modules/old/.gitignore')
    const snapshot = await TreeSnapshot.take(repo.dir, ['.git'])
    sh('echo b > a.txt')
    await expect(snapshot.scope(await Git.open(repo.dir))).resolves.toBeDefined()
  })

  it('removes thousands in batches (one command line cannot hold them)', async () => {
    const { repo, sh } = fifoRepo()
    const snapshot = await TreeSnapshot.take(repo.dir, ['.git'])
    sh('mkdir f && cd f && seq 3000 | xargs mkfifo && cd .. && mkfifo .gitattributes')
    await snapshot.dropSpecialFiles()
    expect(fifos(repo.dir)).toEqual(['./mine', './node_modules/evil/.gitattributes'])
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
