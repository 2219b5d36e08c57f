import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunConfig } from '../config.js'
import { InvalidInputError } from '../contract/index.js'
import { Git, gitIncludedPaths, pushAuth, WorktreeFiles } from '../git/index.js'
import { PathPolicy, assertPlainFiles, assertRepoPaths } from '../policy/index.js'
import { RunJournal } from '../run-state/index.js'
import { signingPublisher } from '../agent/index.js'
import type { Logger, RunnerFacts } from '../run/index.js'

export { WorktreeFiles } from '../git/index.js'
export type { Git } from '../git/index.js'

/*
 * The repository and the branch a run works on, opened and guarded the same way for every mode
 * (one plan, a task file, a follow-up): a checkout named by `repo`, the path policy with its
 * protected files, files a model can edit as text, and the branch settings (credentials,
 * journal, default-branch protection, publisher) that ChangeBranch and WorkBranch both get.
 */

/** The run's path policy on the checkout; refused first when `repo` names no checkout. */
export function workspacePolicy(config: RunConfig, repoDir: string): PathPolicy {
  assertRepository(repoDir)
  return new PathPolicy({
    blockedGlobs: config.blockedPaths,
    allowProtected: config.allowProtectedPaths,
    protectedFiles: gitIncludedPaths(repoDir)
  })
}

/** The repository's git, with what its config holds said once (reportGitConfig). */
export async function openRepository(repoDir: string, logger: Logger): Promise<Git> {
  const git = await Git.open(repoDir)
  try {
    await reportGitConfig(git, logger)
    return git
  } catch (error) {
    git.objects.close()
    throw error
  }
}

/** A planned file: its path, what is done to it, its content on the base (null: none yet). */
interface PlannedChange {
  path: string
  operation: 'CREATE' | 'MODIFY' | 'DELETE'
}

/**
 * Everything about the planned files that may refuse the run before a model is asked or a
 * file written: each is a file the model can edit as text (no LFS pointer, binary, path in a
 * submodule, case twin), and each path is one the policy allows as the repository has it.
 * `branch` (read only) runs beside them; the refusals come in this order.
 */
export async function guardPlannedFiles<T>(
  git: Git,
  planned: { changes: readonly PlannedChange[]; base: ReadonlyMap<string, string | null> },
  policy: PathPolicy,
  branch: () => Promise<T>
): Promise<T> {
  const paths = planned.changes.map((change) => change.path)
  const [plain, checked, prepared] = await Promise.allSettled([
    assertPlainFiles(planned.changes, planned.base, git),
    assertRepoPaths(paths, policy, git.dir, git, 'plan'),
    // A refusal while its options are made (signing without a token) is this one's rejection.
    (async () => branch())()
  ])
  if (plain.status === 'rejected') throw plain.reason
  if (checked.status === 'rejected') throw checked.reason
  if (prepared.status === 'rejected') throw prepared.reason
  return prepared.value
}

/** Paths as the work tree has them now: modified when there, created when not. */
export function plannedAsFound(
  repoDir: string,
  paths: readonly string[]
): { changes: PlannedChange[]; base: Map<string, string | null> } {
  const files = new WorktreeFiles(repoDir)
  const base = new Map(paths.map((path) => [path, files.read(path)]))
  const changes = paths.map((path) => ({
    path,
    operation: base.get(path) === null ? ('CREATE' as const) : ('MODIFY' as const)
  }))
  return { changes, base }
}

/**
 * What every branch a run commits on gets: the push credentials, the journal, the branches it
 * must never go to (the event's default branch and the mode's), and the publisher for
 * commit-signing: github when the run publishes (`publishes`).
 */
export function branchGuards(
  config: RunConfig,
  facts: RunnerFacts,
  logger: Logger,
  options: { repoDir: string; publishes: boolean; protectedBranches?: readonly string[] }
) {
  return {
    auth: pushAuth(config.githubToken, facts.serverUrl, facts.vars),
    journal: RunJournal.for(options.repoDir),
    protectedBranches: [...defaultBranchOf(facts.eventPath), ...(options.protectedBranches ?? [])],
    publisher: signingPublisher(config, facts, logger, options.publishes)
  }
}

/** The checkout's branch and HEAD, as `git status` reads them. */
export async function checkedOut(repoDir: string): Promise<{ branch?: string; head?: string }> {
  return (await Git.open(repoDir)).status()
}

/** The commit checked out. */
export async function headCommit(repoDir: string): Promise<string> {
  return (await Git.open(repoDir)).revParse('HEAD')
}

/**
 * Said once at start: a token actions/checkout persisted in the repository's config, with the
 * fix, and the programs the config names, which Patchsmith's own git never runs.
 */
async function reportGitConfig(git: Git, logger: Logger): Promise<void> {
  const { credentials, programs } = await git.configReport()
  if (credentials.length > 0)
    logger.warn(
      `actions/checkout left the job's token in the repository's git config (${credentials.slice(0, 3).join(', ')}): set "persist-credentials: false" on the actions/checkout step. Patchsmith gives its own token to the push alone and keeps this one out of the sandbox.`
    )
  if (programs.length > 0)
    logger.info(
      `The repository's git config names programs (${programs.slice(0, 5).join(', ')}); Patchsmith's own git runs none of them.`
    )
}

/** The repository's default branch as the triggering event names it: never the plan's branch. */
function defaultBranchOf(eventPath: string | undefined): string[] {
  if (!eventPath) return []
  try {
    const event = JSON.parse(readFileSync(eventPath, 'utf8')) as {
      repository?: { default_branch?: unknown }
    }
    const name = event.repository?.default_branch
    return typeof name === 'string' && name ? [name] : []
  } catch {
    return []
  }
}

/** A repository setting that names no checkout is bad input, not a missing planned file. */
function assertRepository(repoDir: string): void {
  if (existsSync(join(repoDir, '.git'))) return
  const what = existsSync(repoDir) ? 'is not a git repository' : 'does not exist'
  throw new InvalidInputError(
    `${repoDir} ${what}: point "repo" (CLI: --repo) at the checkout to change (actions/checkout's path), or run from inside it.`,
    { field: 'repo', rule: 'not-a-repository' }
  )
}
