/**
 * This process's temp folder (TMPDIR) as a jail sees it: the run keeps there what host git and
 * the run read back (the identity config git reads as GIT_CONFIG_GLOBAL, the sandbox's own
 * folder with the sanitized configs, the commit's scratch index), so a command must neither read
 * nor write it, wherever a workflow points TMPDIR: inside the work tree (by a link too), or a
 * folder of /var/tmp; the work tree itself is refused.
 * Its own process: it sets TMPDIR, which node's tmpdir() reads at each call.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { gitDirs } from '../../src/git/index.js'
import { jailLayout, Sandbox, type BackendName } from '../../src/sandbox/index.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from '../e2e/fruit.js'
import { jailedCommand } from '../support/jailed-command.js'
import { createRepo } from '../support/repo.js'
import { skipWithout } from '../support/sandbox-needs.js'

const BACKENDS: BackendName[] = ['bubblewrap', 'unshare']
const PLACES = [
  'inside the work tree',
  'in /var/tmp',
  'linked from /var/tmp into the work tree'
] as const

const undo: Array<() => void> = []
afterEach(() => {
  for (const step of undo.splice(0).reverse()) step()
})

describe.each(BACKENDS)('TMPDIR with %s', (backend) => {
  it.skipIf(skipWithout(backend)).each(PLACES)(
    '%s: the run keeps its files there unseen and unchanged by the command',
    async (place) => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'jail-temp' })
      undo.push(() => repo.cleanup())
      const temp =
        place === 'in /var/tmp'
          ? mkdtempSync('/var/tmp/patchsmith-temp-')
          : join(repo.dir, '.cache', 'tmp')
      mkdirSync(temp, { recursive: true })
      undo.push(() => rmSync(temp, { recursive: true, force: true }))
      let named = temp
      if (place.startsWith('linked')) {
        const outside = mkdtempSync('/var/tmp/patchsmith-temp-link-')
        undo.push(() => rmSync(outside, { recursive: true, force: true }))
        named = join(outside, 'tmp')
        symlinkSync(temp, named)
      }
      useTemp(named)
      // The identity module keeps its folder for the process: a fresh one in this TMPDIR.
      vi.resetModules()
      const { identityFallbackConfig } = await import('../../src/git/identity.js')
      const config = identityFallbackConfig(process.env)
      const sandbox = await Sandbox.open(jailLayout(process.env, repo.dir, gitDirs(repo.dir)), [
        backend
      ])
      undo.push(() => sandbox.dispose())
      const kept = readdirSync(temp).sort()
      expect(kept.some((name) => name.startsWith('patchsmith-sandbox-'))).toBe(true)

      const result = await jailedCommand(
        `ls -A ${temp} ${named}; echo '[core] fsmonitor = touch /tmp/ran' > ${config} 2>/dev/null; ` +
          `cat ${config} 2>/dev/null || echo unread; echo end`,
        { cwd: repo.dir, sandbox }
      )
      expect(result.stdout).toContain('end')
      expect(result.stdout).toContain('unread')
      for (const name of kept) expect(result.stdout).not.toContain(name)
      expect(readFileSync(config, 'utf8')).toContain('github-actions[bot]')
      expect(readFileSync(config, 'utf8')).not.toContain('fsmonitor')
      expect(readdirSync(temp).sort()).toEqual(kept)
    }
  )
})

it('refuses a TMPDIR that is the work tree itself: ENVIRONMENT_ERROR naming TMPDIR', () => {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'jail-temp-tree' })
  undo.push(() => repo.cleanup())
  useTemp(repo.dir)
  expect(() => jailLayout(process.env, repo.dir, gitDirs(repo.dir))).toThrow(
    expect.objectContaining({
      code: 'ENVIRONMENT_ERROR',
      message: expect.stringContaining('Point TMPDIR at a folder outside the repository')
    })
  )
})

it.skipIf(skipWithout('bubblewrap'))(
  'a run with TMPDIR at its work tree stops before the model is asked, nothing changed (node dist/index.js)',
  async () => {
    const repo = fruitRepo()
    undo.push(() => repo.cleanup())
    const head = repo.git('rev-parse', 'HEAD')
    const run = await runOnFruit(
      repo,
      fruitReplies([swap('apple', 'kiwi')]),
      { sandbox: 'required', 'validation-commands': 'sh check.sh' },
      { TMPDIR: repo.dir, PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' },
      { dist: true }
    )
    expect(run.result.error?.code, run.stdout).toBe('ENVIRONMENT_ERROR')
    expect(run.result.error?.message).toContain('TMPDIR')
    expect(run.server.requests).toHaveLength(0)
    expect(repo.git('rev-parse', 'HEAD')).toBe(head)
    expect(repo.read('fruit.txt')).toBe('apple\n')
  }
)

/** TMPDIR set to `folder` until the test ends. */
function useTemp(folder: string): void {
  const before = process.env.TMPDIR
  process.env.TMPDIR = folder
  undo.push(() => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
  })
}
