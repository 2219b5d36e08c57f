import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { printableMessage, withPatchsmithTrailer } from './commit-message.js'
import {
  COMMIT_FORMAT,
  GitCommandError,
  parseCommitPatch,
  parseCommits,
  type BranchCommit,
  type CommitOptions,
  type GitOutput
} from './git-output.js'
import { GitRemote } from './git-remote.js'
import { parseStatus, statusArgs, type RepoStatus } from './status.js'

export { GitCommandError } from './git-output.js'
export type { BranchCommit, CommitOptions, GitOutput } from './git-output.js'

// git's summary after a commit, in the C locale: "[main 0a1b…] subject", "[main (root-commit) …]".
const COMMIT_SUMMARY = /^\[[^\n\]]*? ([0-9a-f]{40}(?:[0-9a-f]{24})?)\] /

/** The git commands a run uses, one method each; how every one of them runs is GitRunner's. */
export class Git extends GitRemote {
  private constructor(dir: string) {
    super(dir)
  }

  /** Starts no process: the first command (`status`) is also the check that `dir` is a repository. */
  static async open(dir: string): Promise<Git> {
    return new Git(dir)
  }

  /** Branch, HEAD and changed tracked files in one process (statusArgs). */
  async status(): Promise<RepoStatus> {
    return parseStatus((await this.exec(statusArgs())).stdout)
  }

  async revParse(ref: string): Promise<string> {
    return (
      await this.exec(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])
    ).stdout.trim()
  }

  /** The commit a ref points to, or undefined when there is no such ref. */
  async tryRevParse(ref: string): Promise<string | undefined> {
    const out = await this.exec(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], {
      allowFailure: true
    })
    return out.exitCode === 0 ? out.stdout.trim() : undefined
  }

  /** `checkout -b`; a branch that exists already is a failed output, not an exception. */
  async tryCreateBranch(branch: string, startPoint: string): Promise<GitOutput> {
    return this.exec(['checkout', '--quiet', '-b', branch, startPoint, '--'], {
      allowFailure: true
    })
  }

  /** A branch ref without checking it out; fails when the branch exists. */
  async createBranchRef(branch: string, sha: string): Promise<void> {
    await this.exec(['branch', '--no-track', '--end-of-options', branch, sha])
  }

  async checkout(ref: string, options: { force?: boolean } = {}): Promise<void> {
    // The trailing `--`: a ref, even when a file has the same name.
    await this.exec(['checkout', '--quiet', ...(options.force ? ['--force'] : []), ref, '--'])
  }

  async deleteLocalBranch(branch: string): Promise<void> {
    await this.exec(['branch', '-D', branch])
  }

  async resetHard(ref: string): Promise<void> {
    await this.exec(['reset', '--quiet', '--hard', ref])
  }

  /** Moves the checked-out branch to `ref`, leaving index and work tree as they are. */
  async resetSoft(ref: string): Promise<void> {
    await this.exec(['reset', '--quiet', '--soft', ref])
  }

  /** Empties the index back to HEAD, leaving the work tree as it is. */
  async resetIndex(): Promise<void> {
    await this.exec(['reset', '--quiet'])
  }

  /** Removes untracked files, limited to the given paths so a user's own files are never touched. */
  async cleanPaths(paths: readonly string[]): Promise<void> {
    if (paths.length > 0) await this.exec(['clean', '-f', '-q', '--', ...paths])
  }

  /** Stages the work tree state of these paths (deletions included). */
  async addPaths(paths: readonly string[]): Promise<void> {
    if (paths.length > 0) await this.exec(['add', '--all', '--', ...paths])
  }

  /**
   * `git apply --index`: all or nothing (a patch that would fail `--check` writes nothing), so
   * one process is both the gate and the write.
   */
  async applyIndex(patch: string): Promise<GitOutput> {
    return this.exec(['apply', '--index', '--whitespace=nowarn', '-'], {
      input: patch,
      allowFailure: true
    })
  }

  /** Applies to the index only: the work tree already holds the change. */
  async applyCached(patch: string): Promise<void> {
    await this.exec(['apply', '--cached', '--whitespace=nowarn', '-'], { input: patch })
  }

  /**
   * Commits the index; returns git's output (a hook may refuse) and, without hooks, the new
   * commit's full SHA from git's summary line (`[branch <sha>] subject`, unabbreviated).
   */
  async commit(message: string, options: CommitOptions): Promise<GitOutput & { sha?: string }> {
    // No repository maintenance (gc, maintenance --auto) in the middle of a run.
    const args = ['-c', 'core.abbrev=no', '-c', 'maintenance.auto=false', '-c', 'gc.auto=0']
    args.push('commit', '--cleanup=whitespace', '-F', '-')
    // With hooks: no summary, whose diffstat reads the attributes a post-commit hook may have
    // just made a fifo (in the jail, where the fifo watch does not look).
    args.push(options.hooks ? '--quiet' : '--no-verify')
    if (options.signoff) args.push('--signoff')
    const out = await this.exec(args, {
      input: withPatchsmithTrailer(printableMessage(message)),
      allowFailure: true,
      hooks: options.hooks,
      env: options.env
    })
    // A hook's own output could imitate the summary line, so it is read only without hooks.
    const sha = options.hooks ? undefined : COMMIT_SUMMARY.exec(out.stdout)?.[1]
    return { ...out, sha }
  }

  async writeTree(): Promise<string> {
    return (await this.exec(['write-tree'])).stdout.trim()
  }

  /** A commit's SHA and its patch against its first parent, from one process. */
  async commitPatch(ref: string): Promise<{ sha: string; diff: string }> {
    const out = await this.exec([
      'diff-tree',
      '--patch',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-renames',
      '--full-index',
      '--root',
      '--end-of-options',
      ref
    ])
    return parseCommitPatch(out.stdout)
  }

  /** A commit's whole message as git stores it, trailers included (trimmed, as parseCommits). */
  async commitMessage(sha: string): Promise<string> {
    const out = await this.exec(['log', '-1', '--format=%B', '--end-of-options', sha, '--'])
    return out.stdout.trim()
  }

  /** The commits of `tip` that `base` does not have, oldest first (at most `limit`). */
  async commitsSince(base: string, tip: string, limit: number): Promise<BranchCommit[]> {
    const out = await this.exec([
      'log',
      COMMIT_FORMAT,
      `--max-count=${limit}`,
      '--end-of-options',
      tip,
      `^${base}`
    ])
    return parseCommits(out.stdout)
  }

  async stashPush(message: string): Promise<string> {
    const args = ['stash', 'push', '--quiet', '--message', message]
    const out = await this.exec(args, { allowFailure: true })
    if (out.exitCode !== 0) {
      // `stash push` says nothing when the index is locked: the lock is named as git names it.
      const lock = resolve(
        this.dir,
        (await this.exec(['rev-parse', '--git-path', 'index.lock'])).stdout.trim()
      )
      const silent = !out.stderr.trim() && !out.stdout.trim()
      const stderr =
        silent && existsSync(lock) ? `fatal: Unable to create '${lock}': File exists.` : out.stderr
      throw new GitCommandError(args, { ...out, stderr })
    }
    return this.revParse('refs/stash')
  }

  /** Re-applies a stash (index included) and drops it when it is still the newest entry. */
  async stashRestore(sha: string): Promise<GitOutput> {
    const out = await this.exec(['stash', 'apply', '--quiet', '--index', sha], {
      allowFailure: true
    })
    if (out.exitCode === 0 && (await this.tryRevParse('refs/stash')) === sha) {
      await this.exec(['stash', 'drop', '--quiet'])
    }
    return out
  }
}
