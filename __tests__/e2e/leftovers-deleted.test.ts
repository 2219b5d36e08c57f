/**
 * What validation deleted, on the tree itself (no overlay): git is asked only about where the
 * snapshot saw a change (a deleted file changes its folder's ctime), and the root's own ctime is
 * never listed, so a tracked file deleted right in the root, a root folder removed or moved away
 * whole, and a file deleted deep down must all still be found: put back after a green run, and
 * refused as `unexpected-changes` when the file is protected. In process with no sandbox, and
 * through dist/ as a GitHub-hosted runner's user (bubblewrap, not root).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

const TRACKED = {
  '.gitignore': 'node_modules/\n',
  'README.md': '# fruit\n',
  'lib/deep/a/b.txt': 'deep\n',
  'docs/guide.txt': 'guide\n',
  'AGENTS.md': '# agents\n',
  '.github/workflows/ci.yml': 'on: push\n'
}

const WAYS = [
  ['with no sandbox, in process', undefined, true],
  [
    "as a hosted runner's user (bubblewrap)",
    SUDO_USER,
    !skipWithout('bubblewrap') && !skipWithout('sudo-unshare')
  ]
] as const

describe.each(WAYS)('tracked files validation deleted, on the tree itself, %s', (_, user, runs) => {
  async function run(validation: string) {
    const repo = fruitRepo(TRACKED)
    cleanups.push(() => repo.cleanup())
    const run = await runOnFruit(
      repo,
      fruitReplies([swap('apple', 'kiwi')]),
      {
        'validation-commands': `${validation} && sh check.sh`,
        sandbox: user ? 'required' : 'off',
        settings: 'validation-overlay: false'
      },
      user ? { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' } : {},
      { user }
    )
    return { repo, run }
  }

  function expectAllBack(repo: ReturnType<typeof fruitRepo>) {
    for (const [path, content] of Object.entries(TRACKED))
      expect(readFileSync(join(repo.dir, path), 'utf8'), path).toBe(content)
    expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
  }

  it.runIf(runs)(
    'puts them back: one in the root, one deep down, a root folder moved away',
    async () => {
      const { repo, run: done } = await run(
        'rm README.md && rm lib/deep/a/b.txt && mv docs moved && mkdir -p node_modules'
      )
      expect(done.exitCode, done.stdout).toBe(0)
      expectAllBack(repo)
    }
  )

  it.runIf(runs)('refuses a protected file deleted in the root, and puts it back', async () => {
    const { repo, run: done } = await run('rm AGENTS.md')
    expect(done.result.error?.details?.rule, done.stdout).toBe('unexpected-changes')
    expect(JSON.stringify(done.result.error?.details)).toContain('AGENTS.md')
    expectAllBack(repo)
  })

  it.runIf(runs)(
    'refuses a protected file in a root folder removed whole, and puts it back',
    async () => {
      const { repo, run: done } = await run('rm -rf .github')
      expect(done.result.error?.details?.rule, done.stdout).toBe('unexpected-changes')
      expect(JSON.stringify(done.result.error?.details)).toContain('.github/workflows/ci.yml')
      expectAllBack(repo)
    }
  )
})
