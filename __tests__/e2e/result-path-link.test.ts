/**
 * A result path inside the work tree (`output-path: out/result.json`, `out/` ignored) is
 * reachable by validation: a link it leaves at that name must not carry the result file over a
 * runner file outside the jail.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import type { CodeAgentOutput } from '../../src/contract/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

it('never writes the result through a link validation left at its path', async () => {
  const repo = fruitRepo({ '.gitignore': 'out/\n' })
  cleanups.push(() => repo.cleanup())
  const outside = join(repo.root, 'runner-file.sh')
  writeFileSync(outside, 'echo runner\n')
  const hostile = `mkdir -p out && ln -sf ${outside} out/result.json; sh check.sh`
  const result = join(repo.dir, 'out', 'result.json')
  await runOnFruit(repo, fruitReplies([swap('apple', 'banana')]), {
    'validation-commands': hostile,
    'output-path': result,
    sandbox: 'required'
  }).catch(() => undefined)
  expect(readFileSync(outside, 'utf8')).toBe('echo runner\n')
  expect(JSON.parse(readFileSync(result, 'utf8'))).toMatchObject({ success: false })
}, 120_000)

it('never writes the pull-request body through a link validation left beside the result', async () => {
  const repo = fruitRepo({ '.gitignore': 'out/\n' })
  cleanups.push(() => repo.cleanup())
  const outside = join(repo.root, 'runner-file.sh')
  writeFileSync(outside, 'echo runner\n')
  const hostile = `mkdir -p out && ln -sf ${outside} out/pull-request.md; sh check.sh`
  const result = join(repo.dir, 'out', 'result.json')
  // runOnFruit reads its own result path; this run's result is at `result`.
  await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
    'validation-commands': hostile,
    'output-path': result,
    sandbox: 'required'
  }).catch(() => undefined)
  const written = JSON.parse(readFileSync(result, 'utf8')) as CodeAgentOutput
  expect(written.success, JSON.stringify(written.error)).toBe(true)
  expect(readFileSync(outside, 'utf8')).toBe('echo runner\n')
  const body = join(repo.dir, 'out', 'pull-request.md')
  expect(lstatSync(body).isFile()).toBe(true)
  expect(readFileSync(body, 'utf8')).toBe(written.pull_request?.body)
}, 120_000)

it.each(['true', 'false'])(
  'never writes the result or the body through a folder validation replaced by a link (validation-overlay: %s)',
  async (overlay) => {
    const repo = fruitRepo({ '.gitignore': 'out/\n' })
    cleanups.push(() => repo.cleanup())
    const outside = join(repo.root, 'runner-folder')
    mkdirSync(outside)
    mkdirSync(join(repo.dir, 'out/run'), { recursive: true })
    const hostile = `rm -rf out/run && ln -sfn ${outside} out/run; sh check.sh`
    const result = join(repo.dir, 'out/run/result.json')
    await runOnFruit(repo, fruitReplies([swap('apple', 'kiwi')]), {
      'validation-commands': hostile,
      'output-path': result,
      sandbox: 'required',
      settings: `validation-overlay: ${overlay}`
    }).catch(() => undefined)
    expect(readdirSync(outside)).toEqual([])
    expect(lstatSync(join(repo.dir, 'out/run')).isDirectory()).toBe(true)
    const written = JSON.parse(readFileSync(result, 'utf8')) as CodeAgentOutput
    expect(written.success, JSON.stringify(written.error)).toBe(true)
    expect(readFileSync(join(repo.dir, 'out/run/pull-request.md'), 'utf8')).toBe(
      written.pull_request?.body
    )
  },
  120_000
)
