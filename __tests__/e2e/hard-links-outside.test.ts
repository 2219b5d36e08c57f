/**
 * A file of the work tree with another name outside it (a setup step's `ln tools/deploy-ssh
 * /usr/local/bin/`): a command run on the tree itself rewrites it in place, and so the program
 * outside, which git's own ssh then runs as root with the push token, and later steps too
 * (attack round 24: Patchsmith's restore after validation left the rewritten program with one
 * name, trusted at the push). Refused before any command runs; on an overlay commands never
 * write the tree in place.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, linkSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cleanupAfterEach } from '../support/cleanups.js'
import type { TestRepo } from '../support/repo.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { fruitRepo, fruitReplies, runOnFruit, swap } from './fruit.js'

const cleanups = cleanupAfterEach()

/**
 * A folder no copy can be renamed into, its files still writable in place (as root a mode
 * stops nothing): immutable (chattr +i). Undefined where the file system has no such flag.
 */
function immutable(folder: string): (() => void) | undefined {
  try {
    execFileSync('chattr', ['+i', folder], { stdio: 'ignore' })
  } catch {
    return undefined
  }
  return () => execFileSync('chattr', ['-i', folder], { stdio: 'ignore' })
}

const PROGRAM = '#!/bin/sh\nexec ssh "$@"\n'
const REWRITE = 'echo "touch /tmp/pwned" >> tools/deploy-ssh; sh check.sh'

function linkedRepo() {
  const repo = fruitRepo({ 'tools/deploy-ssh': PROGRAM })
  cleanups.push(() => repo.cleanup())
  const bin = join(repo.root, 'bin')
  mkdirSync(bin)
  linkSync(join(repo.dir, 'tools', 'deploy-ssh'), join(bin, 'deploy-ssh'))
  return { repo, outside: join(bin, 'deploy-ssh') }
}

/** A run whose validation rewrites tools/deploy-ssh in place, on the tree itself. */
function onTheTreeItself(repo: TestRepo) {
  return runOnFruit(
    repo,
    fruitReplies([swap('apple', 'kiwi')]),
    { sandbox: 'required', 'validation-commands': REWRITE, settings: 'validation-overlay: false' },
    { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' }
  )
}

describe.skipIf(skipWithout('bubblewrap'))('a file of the tree hard-linked from outside it', () => {
  it('is made a copy of its own before any command runs where commands run on the tree itself', async () => {
    const { repo, outside } = linkedRepo()
    const run = await onTheTreeItself(repo)
    expect(run.stdout).toContain(
      "1 file(s) of the work tree or of git's folder had more than one name"
    )
    // What validation wrote reached the tree's copy alone.
    expect(readFileSync(outside, 'utf8')).toBe(PROGRAM)
    expect(lstatSync(outside).nlink).toBe(1)
    // The run goes on: the change committed alone, the tree's own copy put back.
    expect(run.exitCode, run.stdout).toBe(0)
    expect(run.result.data![0]!.files_changed).toEqual(['fruit.txt'])
    expect(readFileSync(join(repo.dir, 'tools', 'deploy-ssh'), 'utf8')).toBe(PROGRAM)
  })

  it('is refused where it cannot be made a copy of its own', async (context) => {
    const { repo, outside } = linkedRepo()
    const undo = immutable(join(repo.dir, 'tools'))
    if (!undo) return context.skip('chattr +i does not work here')
    try {
      const run = await onTheTreeItself(repo)
      expect(run.exitCode).toBe(1)
      expect(run.result.error).toMatchObject({
        code: 'SECURITY_VIOLATION',
        details: { rule: 'hard-link-outside-tree', path: 'tools/deploy-ssh' }
      })
      expect(run.result.error!.message).toContain('cp, not ln')
      expect(run.server.requests).toHaveLength(0)
      expect(readFileSync(outside, 'utf8')).toBe(PROGRAM)
    } finally {
      undo()
    }
  })

  it.skipIf(skipWithout('unshare'))(
    'runs on an overlay, where the file outside is never written',
    async () => {
      const { repo, outside } = linkedRepo()
      const hook = join(repo.root, 'bin', 'shared-hook')
      writeFileSync(hook, '#!/bin/sh\n')
      linkSync(hook, join(repo.dir, '.git', 'hooks', 'post-commit'))
      const run = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        { sandbox: 'required', 'validation-commands': REWRITE },
        { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' }
      )
      expect(run.stdout).toContain('on an overlay of the work tree')
      // git's folder is written through the overlay (the hooked commit): its links are cut too.
      expect(lstatSync(hook).nlink).toBe(1)
      // What validation did to the file is put back in the tree by a new file, never in place.
      expect(run.exitCode, run.stdout).toBe(0)
      expect(run.result.data![0]!.files_changed).toEqual(['fruit.txt'])
      expect(readFileSync(join(repo.dir, 'tools', 'deploy-ssh'), 'utf8')).toBe(PROGRAM)
      expect(readFileSync(outside, 'utf8')).toBe(PROGRAM)
    }
  )
})

describe.skipIf(skipWithout('sudo-unshare') || skipWithout('bubblewrap'))(
  "a read-only file of the tree hard-linked from outside it, as a GitHub-hosted runner's user",
  () => {
    it('is made a copy of its own: its owner may chmod it in the jail (attack round 25)', async () => {
      const { repo, outside } = linkedRepo()
      chmodSync(outside, 0o555)
      // Committed executable, so the tree is clean (a dirty file would be set aside and back).
      repo.git('update-index', '--chmod=+x', 'tools/deploy-ssh')
      repo.git('commit', '-qm', 'tools: executable')
      repo.git('push', '-q', 'origin', 'HEAD')
      // chown -R (runOnFruit) gives the user both names: the tree's is theirs, read-only.
      const run = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        {
          sandbox: 'required',
          // Rewritten in place, then a fresh copy of the old put back: nothing for the run to see.
          'validation-commands': [
            'cp tools/deploy-ssh /tmp/old',
            'chmod u+w tools/deploy-ssh',
            'echo "touch /tmp/pwned" >> tools/deploy-ssh',
            'cp /tmp/old tools/.new && chmod 555 tools/.new && mv tools/.new tools/deploy-ssh',
            'sh check.sh'
          ].join('; ')
        },
        { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' },
        { dist: true, user: SUDO_USER }
      )
      expect(run.stdout).toContain(
        "1 file(s) of the work tree or of git's folder had more than one name"
      )
      expect(readFileSync(outside, 'utf8')).toBe(PROGRAM)
      expect(lstatSync(outside).nlink).toBe(1)
    })

    it('is refused where a folder this user cannot list hides it (mode 0311): no command runs', async () => {
      const { repo, outside } = linkedRepo()
      const tools = join(repo.dir, 'tools')
      chmodSync(tools, 0o311)
      cleanups.push(() => chmodSync(tools, 0o755))
      const run = await runOnFruit(
        repo,
        fruitReplies([swap('apple', 'kiwi')]),
        { sandbox: 'required', 'validation-commands': REWRITE },
        { PATCHSMITH_SANDBOX_BACKENDS: 'bubblewrap' },
        { dist: true, user: SUDO_USER }
      )
      // Refused by whichever guard lists the tree first: this one, or the host-socket search
      // where it covers the tree (a folder where commands write that this user cannot read).
      const refusals = {
        SECURITY_VIOLATION: 'a folder this user cannot list',
        ENVIRONMENT_ERROR: 'cannot be read by this user'
      }
      const { code, message } = run.result.error!
      expect(Object.keys(refusals)).toContain(code)
      expect(message).toContain(refusals[code as keyof typeof refusals])
      expect(run.server.requests).toHaveLength(0)
      expect(readFileSync(outside, 'utf8')).toBe(PROGRAM)
    })
  }
)
