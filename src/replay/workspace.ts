import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InvalidInputError } from '../contract/index.js'
import { gitProgram, NO_HOOKS, SAFE_CONFIG } from '../git/index.js'
import { hostPath } from '../sandbox/index.js'

/** The branch a replay starts on, at the recorded base commit. */
const REPLAY_BASE_BRANCH = 'replay-base'

interface ReplayWorkspace {
  /** The checkout of the base commit the replay runs in. */
  dir: string
  /** Its tree, or undefined when the commit is not there. */
  treeOf(sha: string): string | undefined
  dispose(): void
}

/**
 * A fresh checkout of the recorded base commit, away from the user's repository: a bare origin
 * holding only that commit's branch (fetched from the repository, whose own branches, hooks and
 * config stay where they are) and a clone of it. Nothing the replay does reaches the user's
 * repository; the base commit must be in it.
 */
export async function replayWorkspace(
  sourceRepo: string,
  baseCommit: string
): Promise<ReplayWorkspace> {
  const git = await sealedGit(sourceRepo)
  if (!/^[0-9a-f]{40}$/.test(baseCommit) || !treeWith(git, sourceRepo, baseCommit))
    throw new InvalidInputError(
      `The recorded base commit ${baseCommit} is not in ${sourceRepo}: fetch it first (git fetch origin), or give the repository with --repo [rule replay-base-missing].`,
      { field: 'repo', base_commit: baseCommit, rule: 'replay-base-missing' }
    )
  const root = mkdtempSync(join(tmpdir(), 'patchsmith-replay-'))
  const origin = join(root, 'origin.git')
  const dir = join(root, 'work')
  try {
    git(root, 'init', '--quiet', '--bare', '-b', REPLAY_BASE_BRANCH, origin)
    git(origin, 'fetch', '--quiet', '--no-tags', sourceRepo, '+refs/*:refs/replay-source/*')
    git(origin, 'update-ref', `refs/heads/${REPLAY_BASE_BRANCH}`, baseCommit)
    const fetched = git(origin, 'for-each-ref', '--format=delete %(refname)', 'refs/replay-source')
    git(origin, 'update-ref', '--stdin', { input: fetched })
    git(root, 'clone', '--quiet', '--branch', REPLAY_BASE_BRANCH, origin, dir)
  } catch (error) {
    rmSync(root, { recursive: true, force: true })
    throw error
  }
  return {
    dir,
    treeOf: (sha) => treeWith(git, dir, sha),
    dispose: () => rmSync(root, { recursive: true, force: true })
  }
}

/** The tree of a commit in a repository, or undefined. */
export async function treeIn(repo: string, sha: string): Promise<string | undefined> {
  return treeWith(await sealedGit(repo), repo, sha)
}

function treeWith(git: SealedGit, repo: string, sha: string): string | undefined {
  if (!/^[0-9a-f]{40}$/.test(sha)) return undefined
  try {
    return git(repo, 'rev-parse', '--verify', '--quiet', `${sha}^{tree}`).trim() || undefined
  } catch {
    return undefined
  }
}

type SealedGit = (cwd: string, ...args: Array<string | { input: string }>) => string

/**
 * git by its absolute path (never a `git` a validation command put first on PATH), with no
 * hooks and no fsmonitor program of the repository's config.
 */
async function sealedGit(repo: string): Promise<SealedGit> {
  const program = await gitProgram(repo)
  return (cwd, ...args) => {
    const last = args.at(-1)
    const input = typeof last === 'object' ? last.input : undefined
    const argv = args.filter((arg): arg is string => typeof arg === 'string')
    return execFileSync(program, [...SAFE_CONFIG, ...NO_HOOKS, '-C', cwd, ...argv], {
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PATH: hostPath(process.env.PATH, [repo]), GIT_TERMINAL_PROMPT: '0' }
    })
  }
}
