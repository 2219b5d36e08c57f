/**
 * A work tree whose `.git` is a link to the git folder elsewhere (a checkout that keeps it apart).
 * The jail bound the git folder onto the link's own path, which bubblewrap follows to where the
 * jail shows nothing: every run ended "No sandbox works on this machine … install bubblewrap"
 * (attack round 7). Through dist/, on bubblewrap and unshare as root.
 */
import { renameSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout } from '../support/sandbox-needs.js'
import { FRUIT_BRANCH, fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

describe.each([
  ['bubblewrap', skipWithout('bubblewrap')],
  ['unshare', skipWithout('unshare')]
] as const)('a .git that is a link to the git folder, %s', (backend, skip) => {
  it.skipIf(skip)(
    'runs in the jail and commits; the git folder stays read-only to validation',
    async () => {
      const repo = fruitRepo()
      cleanups.push(() => repo.cleanup())
      renameSync(join(repo.dir, '.git'), join(repo.root, 'gitdir'))
      symlinkSync(join(repo.root, 'gitdir'), join(repo.dir, '.git'))
      const done = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        {
          'validation-commands': 'sh check.sh && ! touch .git/config 2>/dev/null',
          sandbox: 'required',
          push: 'false'
        },
        { PATCHSMITH_SANDBOX_BACKENDS: backend },
        { dist: true }
      )
      expect(done.result.error, done.stdout).toBeUndefined()
      expect(done.result.metrics?.sandbox).toBe(backend)
      expect(repo.git('log', '-1', '--format=%s', FRUIT_BRANCH)).toBe(
        'fix(fruit): serve the fruit the issue asks for'
      )
      expect(repo.git('cat-file', '-p', `${FRUIT_BRANCH}:fruit.txt`)).toBe('kiwi')
    }
  )
})
