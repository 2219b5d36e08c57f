import { rmSync } from 'node:fs'
import { join, sep } from 'node:path'
import { SecurityViolationError, ValidationFailedError } from '../contract/index.js'
import { ChangeObjects, namesIn, replaceFile } from './change-objects.js'
import {
  type Git,
  type GitOutput,
  gitDirs,
  readRegularFile,
  RepoIntegrity,
  restoreWorkTree,
  unstagedPaths,
  untrackedPaths
} from '../git/index.js'

/**
 * `git commit` with the repository's hooks (`git-hooks: true`), which run with `.git` writable.
 * Before it: `.git` as it is (config and every file it includes, info/, hooks/, HEAD, refs,
 * packed-refs, alternates) and the tree of the index, which holds exactly the approved change.
 * After it, the one change allowed is the checked-out branch moving by one commit on its old
 * tip whose tree is that tree. A hook that writes a filter into the config or attributes, adds
 * a ref, or rewrites an approved file and stages it is SECURITY_VIOLATION (`hook-tampered`):
 * `.git` is put back as it was (the branch too) and the caller rolls back; nothing is pushed.
 * A hook that refuses the commit is VALIDATION_FAILED with its output; its fixes are never
 * staged, since what is committed must be what was validated.
 */
export async function commitWithHooks(
  git: Git,
  message: string,
  options: { signoff: boolean; guardHooks?: () => Promise<() => Promise<void>> }
): Promise<void> {
  const [tree, head, ref] = await Promise.all([
    git.writeTree(),
    git.revParse('HEAD'),
    git.exec(['symbolic-ref', '--quiet', 'HEAD'], { allowFailure: true })
  ])
  const common = gitDirs(git.dir).at(-1)!
  const branchRef = ref.stdout.trim()
  const refFile = join(common, branchRef)
  const guard = await RepoIntegrity.snapshot(git.dir, [], { refs: true })
  const untracked = new Set(await untrackedPaths(git))
  const lock = join(gitDirs(git.dir)[0]!, 'index.lock')
  // The index holds exactly the approved change (and so does the commit, checked below): put
  // back as it was, whatever a hook staged in it, before anything is checked out from it.
  const index = IndexCopy.take(gitDirs(git.dir)[0]!)
  const objects = await ChangeObjects.take(git)
  const planted = new TopLevel(gitDirs(git.dir))
  const putBack = await options.guardHooks?.()
  let out: GitOutput
  try {
    out = await git.commit(message, { signoff: options.signoff, hooks: true })
  } catch (error) {
    // The jail could not start, or the like: what the hooks may have done goes all the same.
    index?.restore()
    objects.putBack()
    planted.remove()
    await putBack?.().catch(() => undefined)
    guard.restore()
    throw error
  }
  // Killed at its limit, git left its lock: nothing else of this run holds the index meanwhile.
  if (out.timedOut) rmSync(lock, { force: true })
  index?.restore()
  const packs = objects.putBack()
  // What the hooks left (a fifo named .gitignore) goes before git looks at the tree again; where
  // that fails (a folder a hook closed), .git is put back before the run says why.
  await putBack?.().catch((error: unknown) => {
    guard.restore()
    throw error
  })
  // A commit stopped at its limit may have moved the branch (a post-commit hook that hung): that
  // alone is put back below; anything else it changed is tampering, as for any failed commit.
  const failed = out.exitCode !== 0 && !out.timedOut
  const problems = guard
    .changes()
    .filter((path) => failed || !branchRef || !holds(path, refFile, common))
    .map((path) => `${path} changed`)
  if (out.exitCode === 0 && problems.length === 0) {
    const made = await git.exec(['log', '-1', '--format=%T %P', 'HEAD', '--'])
    const [madeTree, ...parents] = made.stdout.trim().split(' ')
    if (parents.length !== 1 || parents[0] !== head)
      problems.push(`the commit's parents are ${parents.join(', ') || 'none'}, not ${head}`)
    if (madeTree !== tree) problems.push('the committed tree is not the approved content')
  }
  // The commit and the trees it made too, where one was made: pushed and checked out later.
  const made =
    out.exitCode === 0 && problems.length === 0
      ? (await git.exec(['rev-list', '--objects', '--no-object-names', `${head}..HEAD`])).stdout
      : ''
  const forged = await objects.forged(git, made.split('\n').filter(Boolean))
  problems.push(...forged.map((sha) => `object ${sha} does not hold what its name says`))
  problems.push(...[...packs, ...planted.remove()].map((path) => `${path} added`))
  if (problems.length > 0) {
    guard.restore()
    throw new SecurityViolationError(
      `A commit hook changed what it must not (${problems.slice(0, 5).join('; ')}); .git is put back and nothing is committed or pushed. Hooks may check the change, not alter it or the repository [rule hook-tampered].`,
      { rule: 'hook-tampered', stage: 'commit', problems: problems.slice(0, 20) }
    )
  }
  if (out.exitCode === 0) {
    await settleWorkTree(git, untracked)
    return
  }
  if (out.timedOut && guard.changes().length > 0) guard.restore()
  const why = out.timedOut
    ? 'The commit with hooks did not end within command-timeout (a hook, or git itself, waited on something that never came: a fifo in .git, a prompt); it was stopped and nothing is committed.'
    : 'A commit hook refused the commit.'
  throw new ValidationFailedError(why, {
    rule: 'commit-hook',
    ...(out.timedOut ? { timed_out: true } : {}),
    command: 'git commit',
    exit_code: out.exitCode,
    stderr: out.stderr.trim(),
    stdout: out.stdout.trim()
  })
}

/** The branch's own ref file, or a folder under refs/ on its way that the commit created. */
function holds(path: string, refFile: string, common: string): boolean {
  return (
    path === refFile ||
    (refFile.startsWith(path + sep) && path.startsWith(join(common, 'refs', sep)))
  )
}

/**
 * The work tree as the commit: what a hook rewrote without staging is checked out again and the
 * files it created are removed. A pull-request step after `push: false` commits the work tree's
 * changes as they are, so anything left there would reach the pull request unreviewed.
 */
async function settleWorkTree(git: Git, untrackedBefore: ReadonlySet<string>): Promise<void> {
  // Never a path in a `.git` folder, whatever an index says.
  const outside = (path: string) => !path.split('/').some((name) => name.toLowerCase() === '.git')
  const created = (await untrackedPaths(git)).filter((path) => !untrackedBefore.has(path))
  await restoreWorkTree(git, (await unstagedPaths(git)).filter(outside), created.filter(outside))
}

/** The index file's bytes before the commit, put back after it (in place, by a rename). */
class IndexCopy {
  private constructor(
    private readonly path: string,
    private readonly bytes: Buffer
  ) {}

  static take(gitDir: string): IndexCopy | undefined {
    const path = join(gitDir, 'index')
    const bytes = readRegularFile(path)
    return Buffer.isBuffer(bytes) ? new IndexCopy(path, bytes) : undefined
  }

  restore(): void {
    replaceFile(this.path, this.bytes, 0o644)
  }
}

/**
 * What a git folder holds at its top, to tell what a hook added there (a link to the work tree
 * or /etc, a MERGE_HEAD, a worktree's folder): all but what a commit itself writes is removed.
 */
class TopLevel {
  private readonly before: ReadonlyMap<string, ReadonlySet<string>>

  constructor(private readonly dirs: readonly string[]) {
    this.before = new Map(dirs.map((dir) => [dir, new Set(namesIn(dir))]))
  }

  /** Removes what was added since (never through a link); returns its paths. */
  remove(): string[] {
    const added: string[] = []
    for (const dir of this.dirs)
      for (const name of namesIn(dir))
        if (!this.before.get(dir)?.has(name) && !COMMIT_WRITES.has(name)) {
          rmSync(join(dir, name), { recursive: true, force: true })
          added.push(join(dir, name))
        }
    return added
  }
}

/** What `git commit` (and the `gc --auto` after it) may create at a git folder's top. */
const COMMIT_WRITES = new Set([
  ...['COMMIT_EDITMSG', 'ORIG_HEAD', 'logs', 'index', 'objects', 'refs'],
  ...['packed-refs', 'gc.pid', 'gc.log']
])
