import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { SecurityViolationError, ValidationFailedError } from '../contract/index.js'
import { ObjectQuarantine, replaceFile } from './change-objects.js'
import { CommitWrites, TopLevel } from './commit-writes.js'
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
  const quarantine = ObjectQuarantine.create(gitDirs(git.dir)[0]!, join(common, 'objects'))
  try {
    await commitQuarantined(git, message, options, {
      tree,
      head,
      ref: ref.stdout.trim(),
      quarantine
    })
  } finally {
    quarantine.dispose()
  }
}

async function commitQuarantined(
  git: Git,
  message: string,
  options: { signoff: boolean; guardHooks?: () => Promise<() => Promise<void>> },
  before: { tree: string; head: string; ref: string; quarantine: ObjectQuarantine }
): Promise<void> {
  const { tree, head, quarantine } = before
  const writes = new CommitWrites(gitDirs(git.dir), before.ref, head)
  // Every entry of git's folders but the object store (read-only to the hooks) and the index
  // (put back below); a commit not adopted is gone with the quarantine, and so are its reflogs.
  const guard = await RepoIntegrity.snapshot(git.dir, [], { whole: true, skip: [quarantine.name] })
  if (!guard.complete)
    throw new SecurityViolationError(
      "git's folder holds more entries than a commit with hooks can watch (loose refs, reflogs); nothing was run. Pack the refs (`git pack-refs --all`) or commit without hooks [rule hooks-unwatchable].",
      { rule: 'hooks-unwatchable', stage: 'commit' }
    )
  const untracked = new Set(await untrackedPaths(git))
  const lock = join(gitDirs(git.dir)[0]!, 'index.lock')
  // The index holds exactly the approved change (and so does the commit, checked below): put
  // back as it was, whatever a hook staged in it, before anything is checked out from it.
  const index = FileCopies.take([join(gitDirs(git.dir)[0]!, 'index')])
  const planted = new TopLevel(gitDirs(git.dir))
  const putBack = await options.guardHooks?.()
  let out: GitOutput
  try {
    out = await git.commit(message, { signoff: options.signoff, hooks: true, env: quarantine.env })
  } catch (error) {
    // The jail could not start, or the like: what the hooks may have done goes all the same.
    guard.reopen()
    index.restore()
    planted.remove()
    await putBack?.().catch(() => undefined)
    guard.restore()
    throw error
  }
  // A folder of .git a hook closed (.git itself) is opened before anything of this run reads
  // or writes there: git would fail on it, and a put-back would miss a link inside it.
  const closed = guard.reopen()
  // Killed at its limit, git left its lock: nothing else of this run holds the index meanwhile.
  if (out.timedOut) rmSync(lock, { force: true })
  index.restore()
  // What the hooks left (a fifo named .gitignore) goes before git looks at the tree again; where
  // that fails (a folder a hook closed), .git is put back before the run says why.
  await putBack?.().catch((error: unknown) => {
    guard.restore()
    throw error
  })
  // A commit stopped at its limit may have moved the branch (a post-commit hook that hung): that
  // alone is put back below; anything else it changed is tampering, as for any failed commit.
  const failed = out.exitCode !== 0 && !out.timedOut
  const check = async () => {
    const problems = guard
      .changes()
      .filter((path) => !writes.allows(path, guard, !failed))
      .map((path) => `${path} changed`)
    problems.push(...closed.map((path) => `${path} closed`))
    problems.push(...planted.remove().map((path) => `${path} added`))
    if (!quarantine.intact()) problems.push(`${quarantine.name}, where the commit wrote, replaced`)
    if (out.exitCode === 0 && problems.length === 0)
      problems.push(...(await adoptCommit(git, quarantine, head, tree)))
    return problems
  }
  // A check that cannot finish (something a hook left that cannot be read) is tampering too:
  // .git is put back all the same, never left as the hooks made it.
  const problems = await check().catch((error: unknown) => [
    `what the hooks left could not be checked (${error instanceof Error ? error.message : String(error)})`
  ])
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

/**
 * The commit git made, read from the quarantine: one parent, the old tip, and the approved
 * tree. It and the objects it brought, each hashing to its name, go to the repository's store
 * (pushed and checked out later). Returns what is wrong instead.
 */
async function adoptCommit(
  git: Git,
  quarantine: ObjectQuarantine,
  head: string,
  tree: string
): Promise<string[]> {
  // The store first: a hook's object in the quarantine under a name the store holds (the
  // approved tree's) never stands in for it.
  const env = quarantine.readEnv
  const read = async (args: string[]) => {
    const out = await git.exec(args, { env, allowFailure: true })
    return out.exitCode === 0 ? out.stdout : undefined
  }
  const made = await read(['log', '-1', '--format=%T %P', 'HEAD', '--'])
  const objects = await read(['rev-list', '--objects', '--no-object-names', `${head}..HEAD`])
  if (made === undefined || objects === undefined) return ['the commit git made cannot be read']
  const [madeTree, ...parents] = made.trim().split(' ')
  if (parents.length !== 1 || parents[0] !== head)
    return [`the commit's parents are ${parents.join(', ') || 'none'}, not ${head}`]
  if (madeTree !== tree) return ['the committed tree is not the approved content']
  const forged = await quarantine.adopt(git, objects.split('\n').filter(Boolean))
  return forged.map((sha) => `object ${sha} does not hold what its name says`)
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

/** Files' bytes before the commit, put back after it (by a rename); one absent then, removed. */
class FileCopies {
  private constructor(private readonly files: ReadonlyMap<string, Buffer | undefined>) {}

  /** `paths` as they are (one that is not a regular file is left alone). */
  static take(paths: readonly string[]): FileCopies {
    const files = new Map<string, Buffer | undefined>()
    for (const path of paths) {
      const bytes = readRegularFile(path)
      if (bytes !== 'special') files.set(path, bytes)
    }
    return new FileCopies(files)
  }

  restore(): void {
    for (const [path, bytes] of this.files)
      if (bytes) replaceFile(path, bytes, 0o644)
      else rmSync(path, { force: true })
  }
}
