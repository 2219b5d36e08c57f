/**
 * The base check takes the change's new file away and runs the tests on the base: what stands
 * on that file's way afterwards (its folders made again, a program put where a folder was) is
 * validation's, and goes with the rest. Through dist/, on
 * the tree itself (no overlay), as root under bubblewrap and unshare, and as a hosted runner's
 * user.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import { DIST_WAYS } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

const NEW_FILE = 'newdir/sub/a.md'
const CREATE = `diff --git a/${NEW_FILE} b/${NEW_FILE}\nnew file mode 100644\n--- /dev/null\n+++ b/${NEW_FILE}\n@@ -0,0 +1 @@\n+hello\n`

async function run(way: readonly [string, string, string | undefined, boolean], onBase: string) {
  const [, backend, user] = way
  const repo = fruitRepo()
  cleanups.push(() => repo.cleanup())
  // Fails with the change; on the base (the new file gone) does what it is given.
  const validation = `[ -f ${NEW_FILE} ] && exit 1; ${onBase}; exit 1`
  const done = await runOnFruit(
    repo,
    fruitReplies([swap('apple', 'kiwi'), CREATE]),
    {
      'validation-commands': validation,
      sandbox: 'required',
      'max-repairs': '0',
      settings: 'validation-overlay: false'
    },
    { PATCHSMITH_SANDBOX_BACKENDS: backend },
    { dist: true, user, changes: [{ path: NEW_FILE, operation: 'CREATE' }] }
  )
  return { repo, done }
}

describe.each(DIST_WAYS)('what the base check leaves on the new file’s way, %s', (...way) => {
  it.runIf(way[3])(
    'a set-user-ID program validation put where the new folder was is removed',
    async () => {
      const { repo, done } = await run(way, 'cp /usr/bin/id newdir && chmod 4755 newdir')
      // Taken off the change's way before it is put back; the base check ran to its end.
      expect(done.result.error, done.stdout).toMatchObject({ code: 'VALIDATION_FAILED' })
      expect(done.result.error!.message).toContain('fails the same way on the base branch')
      expect(lstatSync(join(repo.dir, 'newdir'), { throwIfNoEntry: false })).toBeUndefined()
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
    }
  )

  it.runIf(way[3])(
    'a link validation put in place of the new file’s folder is never written through when the change is put back',
    async () => {
      const outside = mkdtempSync(join(tmpdir(), 'patchsmith-outside-'))
      cleanups.push(() => rmSync(outside, { recursive: true, force: true }))
      chmodSync(outside, 0o777)
      const { repo, done } = await run(way, `ln -s ${outside} newdir`)
      expect(done.exitCode, done.stdout).not.toBe(0)
      expect(readdirSync(outside)).toEqual([])
      expect(lstatSync(join(repo.dir, 'newdir'), { throwIfNoEntry: false })).toBeUndefined()
    }
  )

  it.runIf(way[3])(
    'the new file’s folders made again, given away and opened, are removed after a refusal',
    async () => {
      const give = way[2] ? '' : ' && chown 4242:4242 newdir newdir/sub'
      // Its mode change to a planned file had the run refused mid-round, before the put-back.
      const { repo, done } = await run(
        way,
        `chmod 755 fruit.txt; mkdir -p newdir/sub${give} && chmod 1777 newdir/sub`
      )
      expect(done.exitCode, done.stdout).not.toBe(0)
      expect(lstatSync(join(repo.dir, 'newdir'), { throwIfNoEntry: false })).toBeUndefined()
      expect(repo.git('status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('')
    }
  )
})
