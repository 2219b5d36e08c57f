/**
 * This process's temp folder (TMPDIR) as a jail sees it: the run keeps there what host git and
 * the run read back (the identity config git reads as GIT_CONFIG_GLOBAL, the sandbox's own
 * folder with the sanitized configs, the commit's scratch index), so a command must neither read
 * nor write it, wherever a workflow points TMPDIR: inside the work tree, or a folder of /var/tmp.
 * Its own process: it sets TMPDIR, which node's tmpdir() reads at each call.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { gitDirs } from '../../src/git/index.js'
import { jailLayout, Sandbox, type BackendName } from '../../src/sandbox/index.js'
import { jailedCommand } from '../support/jailed-command.js'
import { createRepo } from '../support/repo.js'
import { skipWithout } from '../support/sandbox-needs.js'

const BACKENDS: BackendName[] = ['bubblewrap', 'unshare']
const PLACES = ['inside the work tree', 'in /var/tmp'] as const

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
      const before = process.env.TMPDIR
      process.env.TMPDIR = temp
      undo.push(() => {
        if (before === undefined) delete process.env.TMPDIR
        else process.env.TMPDIR = before
      })
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
        `ls -A ${temp}; echo '[core] fsmonitor = touch /tmp/ran' > ${config} 2>/dev/null; ` +
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
