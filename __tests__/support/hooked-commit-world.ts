import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { gitDirs } from '../../src/git/index.js'
import { jailLayout, Sandbox, type BackendName } from '../../src/sandbox/index.js'
import { GREETING, MESSAGE, changeBranchWorld } from './change-branch-world.js'
import type { TestRepo } from './repo.js'
import { skipWithout } from './sandbox-needs.js'

/** The backends a hooked commit is tried in as root, and whether this machine skips each. */
export const JAIL_BACKENDS: Array<[BackendName, boolean]> = [
  ['bubblewrap', skipWithout('bubblewrap')],
  ['unshare', skipWithout('unshare')]
]

/**
 * The world of the hooked commit's tests in the real jail (unit/hooked-commit-*.test.ts): the
 * greeting change of change-branch-world, committed with the repository's hooks.
 */
export function hookedCommitWorld(cleanups: Array<() => unknown>) {
  const { repoWith, prepare } = changeBranchWorld(cleanups)

  /** A folder outside every repository (where a hook would have Patchsmith write), removed after. */
  function outsideFolder(): string {
    const outside = mkdtempSync(join(tmpdir(), 'patchsmith-outside-'))
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }))
    return outside
  }

  /** `body` as the hook `name` of the repository at `dir` ($OUTSIDE set to `outside`). */
  function writeHook(dir: string, name: string, body: string, outside = ''): void {
    const hook = join(dir, '.git', 'hooks', name)
    mkdirSync(join(hook, '..'), { recursive: true })
    writeFileSync(hook, `#!/bin/sh\nOUTSIDE='${outside}'\n${body}\n`)
    chmodSync(hook, 0o755)
  }

  /**
   * The greeting applied on a new branch of `repo` (at `tree`: a linked worktree of it), git's
   * hooks in the `backend` jail; `commit()` commits it with them.
   */
  async function jailed(repo: TestRepo, backend: BackendName, tree = repo.dir) {
    const sandbox = await Sandbox.open(jailLayout(process.env, tree, gitDirs(tree), []), [backend])
    cleanups.push(() => sandbox.dispose())
    expect(sandbox.backend).toBe(backend)
    const checkout =
      tree === repo.dir
        ? repo
        : { ...repo, dir: tree, git: (...args: string[]) => repo.git('-C', tree, ...args) }
    const { git, branch } = await prepare(checkout, { push: false })
    git.hookJail = { sandbox, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }
    await branch.create()
    await branch.apply(GREETING, ['src/greet.txt'])
    const commit = () =>
      branch.commit([{ message: MESSAGE, patch: GREETING, paths: ['src/greet.txt'] }], {
        signoff: true,
        hooks: true
      })
    return { git, branch, commit, checkout }
  }

  return { repoWith, outsideFolder, writeHook, jailed }
}
