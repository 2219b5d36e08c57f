/**
 * This process's temp folder (TMPDIR) and the jail: the run keeps there what host git and the
 * run read back (the identity config git reads as GIT_CONFIG_GLOBAL, the sandbox's own folder
 * with the sanitized configs and the seccomp filter, the commit's scratch index), so a command
 * must neither read nor write it. Elsewhere it is hidden; inside the work tree it is refused
 * (a command could rename a folder above it, its cover with it, and reach it from the next
 * jail: attack round s36), by a link or a bind mount too.
 * Its own process: it sets TMPDIR, which node's tmpdir() reads at each call.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { gitDirs } from '../../src/git/index.js'
import { jailLayout, Sandbox, type BackendName } from '../../src/sandbox/index.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from '../e2e/fruit.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { jailedCommand } from '../support/jailed-command.js'
import { createRepo } from '../support/repo.js'
import { skipWithout } from '../support/sandbox-needs.js'

const BACKENDS: BackendName[] = ['bubblewrap', 'unshare']

const undo = cleanupAfterEach()

describe.each(BACKENDS)('TMPDIR in /var/tmp with %s', (backend) => {
  it.skipIf(skipWithout(backend))(
    'the run keeps its files there unseen and unchanged by the command',
    async () => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'jail-temp' })
      undo.push(() => repo.cleanup())
      const temp = mkdtempSync('/var/tmp/patchsmith-temp-')
      undo.push(() => rmSync(temp, { recursive: true, force: true }))
      useTemp(temp)
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

const INSIDE = {
  'the work tree itself': (tree: string) => tree,
  'a folder of it': (tree: string) => made(join(tree, '.cache')),
  'a folder two deep': (tree: string) => made(join(tree, '.cache', 'tmp')),
  'a link from /var/tmp into it': (tree: string) => {
    const outside = mkdtempSync('/var/tmp/patchsmith-temp-link-')
    undo.push(() => rmSync(outside, { recursive: true, force: true }))
    symlinkSync(made(join(tree, '.cache', 'tmp')), join(outside, 'tmp'))
    return join(outside, 'tmp')
  },
  'a link in it to a folder outside': (tree: string) => {
    const outside = mkdtempSync('/var/tmp/patchsmith-temp-out-')
    undo.push(() => rmSync(outside, { recursive: true, force: true }))
    symlinkSync(outside, join(tree, '.tmplink'))
    return join(tree, '.tmplink')
  },
  'a bind mount of it': (tree: string) => {
    const mirror = mkdtempSync('/var/tmp/patchsmith-temp-bind-')
    execFileSync('mount', ['--bind', tree, mirror])
    undo.push(() => {
      execFileSync('umount', [mirror])
      rmSync(mirror, { recursive: true, force: true })
    })
    return made(join(mirror, '.cache', 'tmp'))
  }
}

// Only root makes a bind mount.
const PLACES = (Object.keys(INSIDE) as Array<keyof typeof INSIDE>).filter(
  (place) => place !== 'a bind mount of it' || process.getuid?.() === 0
)

it.each(PLACES)(
  'refuses a TMPDIR that is %s: ENVIRONMENT_ERROR naming TMPDIR, before any jail',
  (place) => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'jail-temp-tree' })
    undo.push(() => repo.cleanup())
    useTemp(INSIDE[place](repo.dir))
    expect(() => jailLayout(process.env, repo.dir, gitDirs(repo.dir))).toThrow(
      expect.objectContaining({
        code: 'ENVIRONMENT_ERROR',
        message: expect.stringContaining('Point TMPDIR at a folder outside the repository')
      })
    )
  }
)

it.skipIf(skipWithout('bubblewrap'))(
  'a run with TMPDIR in its work tree stops before the model is asked, nothing changed (node dist/index.js)',
  async () => {
    const repo = fruitRepo()
    undo.push(() => repo.cleanup())
    const head = repo.git('rev-parse', 'HEAD')
    const run = await runOnFruit(
      repo,
      fruitReplies([swap('apple', 'kiwi')]),
      { sandbox: 'required', 'validation-commands': 'sh check.sh' },
      { TMPDIR: made(join(repo.dir, '.cache', 'tmp')), PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' },
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

/** `folder`, made with its parents. */
function made(folder: string): string {
  mkdirSync(folder, { recursive: true })
  return folder
}
