import { execFileSync } from 'node:child_process'
import { expect } from 'vitest'
import { ChangeBranch, type ChangeBranchOptions } from '../../src/change/index.js'
import { Git } from '../../src/git/index.js'
import { createRepo, type TestRepo } from './repo.js'

/**
 * The world of ChangeBranch's unit tests (unit/change-branch*.test.ts): a small repository with
 * a bare origin, the greeting change as a whole-file diff, and the happy path as the agent runs
 * it.
 */

export const BRANCH = 'fix/3-greeting'
export const FILES = { 'src/greet.txt': 'hello\n', 'README.md': '# Demo\n', 'notes.txt': 'mine\n' }

/** A whole-file unified diff, as the canonical renderer writes one. */
export function modify(path: string, before: string, after: string): string {
  const lines = (text: string) => text.replace(/\n$/, '').split('\n')
  const old = lines(before)
  const next = lines(after)
  return (
    [
      `diff --git a/${path} b/${path}`,
      `--- a/${path}`,
      `+++ b/${path}`,
      `@@ -1,${old.length} +1,${next.length} @@`,
      ...old.map((line) => `-${line}`),
      ...next.map((line) => `+${line}`)
    ].join('\n') + '\n'
  )
}

export const GREETING = modify('src/greet.txt', 'hello\n', 'hello, world\n')
export const MESSAGE = 'fix(src): greet the whole world politely\n\nFixes #3'

/** `git patch-id --stable` of a commit, as git computes it. */
export function gitPatchIdOf(repo: TestRepo, sha: string): string {
  const patch = execFileSync('git', ['diff-tree', '-p', '--full-index', sha], { cwd: repo.dir })
  const out = execFileSync('git', ['patch-id', '--stable'], { cwd: repo.dir, input: patch })
  return out.toString().split(' ')[0]!
}

/** The repositories a test makes, removed through `cleanups`. */
export function changeBranchWorld(cleanups: Array<() => unknown>) {
  function repoWith(files: Record<string, string> = FILES): TestRepo {
    const repo = createRepo({ files, prefix: 'branch' })
    cleanups.push(() => repo.cleanup())
    return repo
  }

  async function prepare(repo: TestRepo, options: Partial<ChangeBranchOptions> = {}) {
    const git = await Git.open(repo.dir)
    const branch = await ChangeBranch.prepare(git, {
      branch: BRANCH,
      plannedPaths: ['src/greet.txt'],
      ...options
    })
    return { git, branch }
  }

  /** The happy path as the agent runs it: create, apply, commit, push, restore. */
  async function run(repo: TestRepo, options: Partial<ChangeBranchOptions> = {}, patch = GREETING) {
    const { git, branch } = await prepare(repo, options)
    await branch.create()
    await branch.reset() // the agent resets before each attempt
    const applied = await branch.apply(patch, ['src/greet.txt'])
    expect(applied.exitCode, applied.stderr).toBe(0)
    // As the agent does once it checked the index after validation (assertClean).
    branch.noteIndexChecked()
    // As the agent commits: the approved contents go with the request.
    const files = [{ path: 'src/greet.txt', content: repo.read('src/greet.txt') }]
    const made =
      (await branch.reuseExisting()) ??
      (await branch.commit([{ message: MESSAGE, patch, paths: ['src/greet.txt'], files }], {
        signoff: true
      }))
    await branch.pushBranch()
    const problems = await branch.restoreUserChanges()
    return { git, branch, made, problems }
  }

  return { repoWith, prepare, run }
}
