import { PermissionDeniedError } from '../contract/index.js'
import { shellQuote, type Sandbox } from '../sandbox/index.js'
import { printableMessage, withPatchsmithTrailer } from './commit-message.js'
import { NO_PROGRAMS, sealedEnv } from './git-env.js'
import {
  COMMIT_FORMAT,
  GitCommandError,
  parseCommitPatch,
  parseCommits,
  type BranchCommit,
  type CommitOptions,
  type GitExecOptions,
  type GitOutput
} from './git-output.js'
import { gitBatchProcess, gitProcess } from './git-process.js'
import { ConfigSeal, gitProgram, headerKeys, NO_HOOKS, SAFE_CONFIG } from './git-seal.js'
import { FALLBACK_IDENTITY, identityFallbackConfig } from './identity.js'
import { assertExpectedRemote } from './expected-remote.js'
import { assertOwnTransportKeys, assertSafeRemoteKeys, ownRemoteUrl } from './remote-config.js'
import { ObjectReader } from './object-reader.js'
import { parseStatus, statusArgs, type RepoStatus } from './status.js'
import type { ConfigEntry } from './repo-config.js'

export { GitCommandError } from './git-output.js'
export type { BranchCommit, CommitOptions, GitExecOptions, GitOutput } from './git-output.js'

// Talking to a remote with the token present: no transport that runs a command.
const REMOTE_CONFIG = ['-c', 'protocol.ext.allow=never']
// git's summary after a commit, in the C locale: "[main 0a1b…] subject", "[main (root-commit) …]".
const COMMIT_SUMMARY = /^\[[^\n\]]*? ([0-9a-f]{40}(?:[0-9a-f]{24})?)\] /

/**
 * The only door to git: argument arrays (no shell), no prompts, an allowlisted environment, and
 * a count of the processes started so the cost of a run can be reported. No git process it
 * starts runs a program the repository names: hooks off (or in the jail), and every program key
 * of the effective config (filters, diff and merge drivers, textconv, external diff, fsmonitor,
 * askpass, signing) emptied. Driver names are arbitrary and the config can include tracked
 * files, so the config is listed again before any command whenever one of its files changed;
 * remote commands also refuse repository keys that run a transport program or redirect the push.
 * Neutralising rather than refusing keeps repositories that configure `git lfs install --local`
 * or a textconv working: Patchsmith builds its commits with `--no-filters` anyway.
 */
export class Git {
  processCount = 0

  /**
   * Where the repository's hooks run, when they are on (`git-hooks: true`): git itself runs in
   * the run's sandbox with its folder writable, and the hooks see only the allowlisted
   * environment. Unset when there is no sandbox.
   */
  hookJail?: { sandbox: Sandbox; env: Record<string, string> }
  private identity?: Promise<Record<string, string>>
  private readonly seal: ConfigSeal
  /** Each remote's URL, resolved and checked once (remoteTarget). */
  private readonly remotes = new Map<string, Promise<string>>()

  private constructor(readonly dir: string) {
    this.seal = new ConfigSeal(dir, () => this.processCount++)
  }

  /** Starts no process: the first command (`status`) is also the check that `dir` is a repository. */
  static async open(dir: string): Promise<Git> {
    return new Git(dir)
  }

  async exec(args: readonly string[], options: GitExecOptions = {}): Promise<GitOutput> {
    const { full, env } = await this.sealed(args, options)
    if (options.hooks && this.hookJail) return this.execWithHooks(full, options)
    const output = await gitProcess(await gitProgram(), full, {
      long: Boolean(options.network || options.hooks),
      cwd: this.dir,
      silent: true,
      ignoreReturnCode: true,
      input: options.input === undefined ? undefined : Buffer.from(options.input),
      env
    })
    if (output.exitCode !== 0 && !options.allowFailure) throw new GitCommandError(args, output)
    return output
  }

  /** The run's one `cat-file --batch`, started on first read; `objects.close()` ends it. */
  readonly objects = new ObjectReader(async () => {
    const { full, env } = await this.sealed(['cat-file', '--batch'], {})
    return gitBatchProcess(await gitProgram(), full, { cwd: this.dir, env })
  })

  /** A command's arguments and environment under the seal; the process is counted. */
  private async sealed(args: readonly string[], options: GitExecOptions) {
    const seal = await this.seal.get()
    assertOwnTransportKeys(seal.entries, this.dir)
    if (options.network) assertSafeRemoteKeys(seal.entries, this.dir, headerKeys(options.env))
    this.processCount++
    const config = [
      ...SAFE_CONFIG,
      ...(options.hooks ? [] : NO_HOOKS),
      ...(options.network ? REMOTE_CONFIG : [])
    ]
    const parameters = ConfigSeal.parameters(seal, options.env)
    const env = sealedEnv(options, parameters, identityFallbackConfig(process.env))
    return { full: [...config, ...args], env }
  }

  /** The effective config as git lists it: no process unless a config file changed. */
  async configEntries(): Promise<readonly ConfigEntry[]> {
    return (await this.seal.get()).entries
  }

  /** What the repository's config holds that a run's log names (see ConfigSeal.report). */
  configReport(): Promise<{ credentials: string[]; programs: string[] }> {
    return this.seal.report()
  }

  /** `git …` with the repository's hooks, in the sandbox (see hookJail). */
  private async execWithHooks(args: string[], options: GitExecOptions): Promise<GitOutput> {
    const jail = this.hookJail!
    // The identity fallback file lives in a folder the sandbox hides: the fallback goes by
    // environment instead, and only where the repository and the user's config set none.
    this.identity ??= this.identityEnv()
    const env = {
      ...jail.env,
      GIT_TERMINAL_PROMPT: '0',
      // git 2.44 and later: no lazy fetch of a missing object behind a local command.
      GIT_NO_LAZY_FETCH: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      ...NO_PROGRAMS,
      ...(await this.identity),
      ...options.env,
      GIT_CONFIG_PARAMETERS: ConfigSeal.parameters(await this.seal.get(), options.env)
    }
    const command = [await gitProgram(), ...args].map(shellQuote).join(' ')
    const spec = jail.sandbox.spawnSpec(command, this.dir, env, { gitWritable: true })
    const output = await gitProcess(spec.file, spec.args, {
      cwd: this.dir,
      long: true,
      silent: true,
      ignoreReturnCode: true,
      input: options.input === undefined ? undefined : Buffer.from(options.input),
      env: spec.env
    })
    if (output.exitCode !== 0 && !options.allowFailure) throw new GitCommandError(args, output)
    return output
  }

  private async identityEnv(): Promise<Record<string, string>> {
    const get = async (key: string) =>
      (await this.exec(['config', '--get', key], { allowFailure: true })).stdout.trim()
    const [name, email] = await Promise.all([get('user.name'), get('user.email')])
    const env: Record<string, string> = {}
    if (!name) env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = FALLBACK_IDENTITY.name
    if (!email) env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = FALLBACK_IDENTITY.email
    return env
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
    const out = await this.exec(args, { env, network: true })
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
    await this.exec([...args, `refs/heads/${branch}`], { env, network: true })
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
      target = this.seal.get().then(({ entries }) => {
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
    await this.exec(['stash', 'push', '--quiet', '--message', message])
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
