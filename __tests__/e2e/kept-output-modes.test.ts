/**
 * `validation-keep` carries build output a later step wants (issue 36's attack round): never with
 * a set-user-ID or set-group-ID bit, so a copy of a shell validation left as root cannot be
 * anyone's way to root, on an overlay of the work tree and on the tree itself.
 */
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { skipWithout } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

const WAYS = [
  ['bubblewrap, on the tree itself', 'bubblewrap', 'false', !skipWithout('bubblewrap')],
  ['unshare, on an overlay', 'unshare', 'true', !skipWithout('unshare')],
  ['unshare, on the tree itself', 'unshare', 'false', !skipWithout('unshare')]
] as const

describe.each(WAYS)('output validation-keep carries, %s', (_, backend, overlay, runs) => {
  it.runIf(runs)(
    'keeps the file and its execute bits, without set-user or set-group ID',
    async () => {
      const repo = fruitRepo({ '.gitignore': 'dist/\n' })
      cleanups.push(() => repo.cleanup())
      const run = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        {
          'validation-commands':
            'mkdir -p dist && cp /bin/sh dist/app && chmod 6755 dist/app && sh check.sh',
          sandbox: 'required',
          settings: `validation-overlay: ${overlay}\nvalidation-keep: dist/**`
        },
        { PATCHSMITH_SANDBOX_BACKENDS: backend },
        { dist: true }
      )
      expect(run.exitCode, run.stdout).toBe(0)
      const mode = lstatSync(join(repo.dir, 'dist/app')).mode & 0o7777
      expect(mode.toString(8)).toBe('755')
    }
  )
})
