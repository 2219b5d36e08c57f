/**
 * A result path inside the work tree (`output-path: out/result.json`, `out/` ignored) is
 * reachable by validation: a link it leaves at that name must not carry the result file over a
 * runner file outside the jail.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

it('never writes the result through a link validation left at its path', async () => {
  const repo = fruitRepo({ '.gitignore': 'out/\n' })
  cleanups.push(() => repo.cleanup())
  const outside = join(repo.root, 'runner-file.sh')
  writeFileSync(outside, 'echo runner\n')
  const hostile = `mkdir -p out && ln -sf ${outside} out/result.json; node check.js`
  const result = join(repo.dir, 'out', 'result.json')
  await runOnFruit(repo, fruitReplies([swap('apple', 'banana')]), {
    'validation-commands': hostile,
    'output-path': result,
    sandbox: 'required'
  }).catch(() => undefined)
  expect(readFileSync(outside, 'utf8')).toBe('echo runner\n')
  expect(JSON.parse(readFileSync(result, 'utf8'))).toMatchObject({ success: false })
}, 120_000)
