/**
 * Validation on an overlay of the work tree (and on the tree itself): a file put where a folder
 * the user had was (an ignored build folder), or a folder put where the user's own untracked
 * file was, is validation's creation and never stays after a green run. On the overlay it was
 * never carried, so the user's folder and file are as they were; on the tree itself they are
 * removed. The pull-request step after Patchsmith commits what the work tree holds.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

it.each([
  ['on the work tree itself', 'false'],
  ['on an overlay of the work tree (where the sandbox has one)', 'true']
])(
  'removes a file validation put where a folder was and a folder it put where a file was, %s',
  async (_, overlay) => {
    const repo = fruitRepo({ '.gitignore': 'dist/\n' })
    cleanups.push(() => repo.cleanup())
    mkdirSync(join(repo.dir, 'dist'))
    writeFileSync(join(repo.dir, 'dist', 'bundle.js'), 'built\n')
    writeFileSync(join(repo.dir, 'mine.txt'), 'my own\n')
    const hostile =
      'rm -rf dist && echo planted > dist && rm mine.txt && mkdir mine.txt && echo planted > mine.txt/payload.js && sh check.sh'
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      'validation-commands': hostile,
      sandbox: 'required',
      settings: `validation-overlay: ${overlay}`
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.stdout.includes('on an overlay of the work tree')).toBe(overlay === 'true')
    expect(existsSync(join(repo.dir, 'mine.txt', 'payload.js'))).toBe(false)
    if (overlay === 'true') {
      expect(readFileSync(join(repo.dir, 'dist', 'bundle.js'), 'utf8')).toBe('built\n')
      expect(readFileSync(join(repo.dir, 'mine.txt'), 'utf8')).toBe('my own\n')
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('?? mine.txt')
    } else {
      expect(existsSync(join(repo.dir, 'dist'))).toBe(false)
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    }
  },
  120_000
)
