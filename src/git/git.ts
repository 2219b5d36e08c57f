import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { PermissionDeniedError } from '../contract/index.js'
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
import { GitRunner } from './git-runner.js'
import { assertExpectedRemote } from './expected-remote.js'
import { remoteReadError } from './remote-errors.js'
import { ownRemoteUrl } from './remote-config.js'
import { parseStatus, statusArgs, type RepoStatus } from './status.js'

export { GitCommandError } from './git-output.js'
export type { BranchCommit, CommitOptions, GitExecOptions, GitOutput } from './git-output.js'

// git's summary after a commit, in the C locale: "[main 0a1b…] subject", "[main (root-commit) …]".
const COMMIT_SUMMARY = /^\[[^\n\]]*? ([0-9a-f]{40}(?:[0-9a-f]{24})?)\] /

/** The git commands a run uses, one method each; how every one of them runs is GitRunner's. */
export class Git extends GitRunner {
  /** Each remote's URL, resolved and checked once (remoteTarget). */
  private readonly remotes = new Map<string, Promise<string>>()

  private constructor(dir: string) {
    super(dir)
  }

  /** Starts no process: the first command (`status`) is also the check that `dir` is a repository. */
  static async open(dir: string): Promise<Git> {
    return new Git(dir)
  }

  /** Branch, HEAD and changed tracked files in one process (statusArgs). */
  async status(options: { untracked?: boolean } = {}): Promise<RepoStatus> {
    const status = parseStatus((await this.exec(statusArgs(options))).stdout)
    return options.untracked ? { ...status, untracked: status.untracked ?? [] } : status
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

  /**
   * One `ls-remote`: the remote's default branch and the tip of `branch` there. Throws the
   * command's output when the remote cannot be read.
   */
  async remoteHeads(
    remote: string,
    branch: string,
    env?: Record<string, string>
  ): Promise<{ defaultBranch?: string; tip?: string }> {
    const url = await this.remoteTarget(remote)
    const args = ['ls-remote', '--symref', url, 'HEAD', `refs/heads/${branch}`]
    const out = await this.readRemote(remote, url, args, env)
    const result: { defaultBranch?: string; tip?: string } = {}
    for (const line of out.stdout.split('\n')) {
      const symref = /^ref: refs\/heads\/(.+)\tHEAD$/.exec(line)
      if (symref) result.defaultBranch = symref[1]
      const [sha, ref] = line.split('\t')
      if (ref === `refs/heads/${branch}` && sha) result.tip = sha
    }
    return result
  }

  async fetchBranch(remote: string, branch: string, env?: Record<string, string>): Promise<void> {
    const url = await this.remoteTarget(remote)
    // Into FETCH_HEAD only: the commits are read by SHA.
    const args = ['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', url]
    await this.readRemote(remote, url, [...args, `refs/heads/${branch}`], env)
  }

  /** A command that reads the remote; one that cannot reach or read it is PERMISSION_DENIED. */
  private async readRemote(
    remote: string,
    url: string,
    args: string[],
    env?: Record<string, string>
  ): Promise<GitOutput> {
    const out = await this.exec(args, { env, network: true, allowFailure: true })
    if (out.exitCode === 0) return out
    const text = out.stderr.trim() || out.stdout.trim()
    throw remoteReadError(remote, text, url)
  }

  /**
   * The URL every push, fetch and ls-remote to `remote` goes to, resolved once: the one
   * `remote.<name>.url` of `.git/config` itself (an included file cannot add another that the
   * push would also go to), under Actions the workflow's own repository. Named remotes are
   * never passed to git, which would follow every url, pushurl and include of the moment.
   */
  async remoteTarget(remote: string): Promise<string> {
    let target = this.remotes.get(remote)
    if (!target) {
      target = this.configEntries().then((entries) => {
        const url = ownRemoteUrl(entries, this.dir, remote)
        if (url === undefined)
          throw new PermissionDeniedError(
            `There is no remote "${remote}" in .git/config to push to; add one, or run with push disabled (push: false).`,
            { remote, rule: 'no-remote' }
          )
        assertExpectedRemote(remote, url)
        return url
      })
      this.remotes.set(remote, target)
    }
    return target
  }

  /** The remote's configured URL; undefined when there is no such remote. */
  async remoteUrl(remote: string): Promise<string | undefined> {
    const out = await this.exec(['config', '--get', `remote.${remote}.url`], { allowFailure: true })
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
    if (!options.hooks) args.push('--no-verify')
    if (options.signoff) args.push('--signoff')
    const out = await this.exec(args, {
      input: withPatchsmithTrailer(printableMessage(message)),
      allowFailure: true,
      hooks: options.hooks
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

  /**
   * `push --dry-run`: asks the remote for push access (GitHub answers 403 to a token without
   * contents: write) without sending anything; server hooks do not run.
   */
  async pushDryRun(
    remote: string,
    refspec: string,
    env?: Record<string, string>
  ): Promise<GitOutput> {
    const url = await this.remoteTarget(remote)
    return this.exec(['push', '--dry-run', '--porcelain', '--no-verify', url, refspec], {
      allowFailure: true,
      env,
      network: true
    })
  }

  /** Pushes one explicit refspec to the remote's checked URL; `lease` guards a deletion. */
  async push(
    remote: string,
    refspec: string,
    env?: Record<string, string>,
    lease?: string
  ): Promise<GitOutput> {
    const url = await this.remoteTarget(remote)
    const guard = lease ? [`--force-with-lease=${lease}`] : []
    return this.exec(['push', '--porcelain', '--no-verify', ...guard, url, refspec], {
      allowFailure: true,
      env,
      network: true
    })
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
