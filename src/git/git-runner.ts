import { shellQuote, startedInJail, startRaced, type Sandbox } from '../sandbox/index.js'
import { NO_PROGRAMS, sealedEnv } from './git-env.js'
import { GitCommandError, type GitExecOptions, type GitOutput } from './git-output.js'
import { gitBatchProcess, gitProcess } from './git-process.js'
import { ConfigSeal, gitProgram, headerKeys, NO_HOOKS, SAFE_CONFIG } from './git-seal.js'
import { FALLBACK_IDENTITY, identityFallbackConfig } from './identity.js'
import { ObjectReader } from './object-reader.js'
import { assertOwnTransportKeys, assertSafeRemoteKeys } from './remote-config.js'
import type { ConfigEntry } from './repo-config.js'

// Talking to a remote with the token present: no transport that runs a command.
const REMOTE_CONFIG = ['-c', 'protocol.ext.allow=never']

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
export class GitRunner {
  processCount = 0

  /**
   * Where the repository's hooks run, when they are on (`git-hooks: true`): git itself runs in
   * the run's sandbox with its folder writable but its object store read-only (a command
   * that writes objects is given a quarantine for them in `env`: GIT_OBJECT_DIRECTORY), and
   * the hooks see only the allowlisted environment. Unset when there is no sandbox.
   */
  hookJail?: { sandbox: Sandbox; env: Record<string, string> }
  /**
   * How long a command with the hooks may run (validation's command-timeout, read when it
   * starts): a hook, or git itself, waiting on something that never comes (a fifo in `.git`
   * inside the jail, where the fifo watch does not look) is killed then. No limit when unset.
   */
  hookLimitMs?: () => number
  private identity?: Promise<Record<string, string>>
  private readonly seal: ConfigSeal

  protected constructor(readonly dir: string) {
    this.seal = new ConfigSeal(dir, () => this.processCount++)
  }

  async exec(args: readonly string[], options: GitExecOptions = {}): Promise<GitOutput> {
    const { full, env } = await this.sealed(args, options)
    if (options.hooks && this.hookJail) return this.execWithHooks(full, options)
    const output = await gitProcess(await gitProgram(this.dir), full, {
      long: Boolean(options.network || options.hooks),
      timeoutMs: options.hooks ? this.hookLimitMs?.() : undefined,
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
  readonly objects = this.objectReader({})

  /** A `cat-file --batch` of its own with `env` on top (another object store); the caller closes it. */
  objectReader(extra: Record<string, string>): ObjectReader {
    return new ObjectReader(async () => {
      const { full, env } = await this.sealed(['cat-file', '--batch'], { env: extra })
      return gitBatchProcess(await gitProgram(this.dir), full, { cwd: this.dir, env })
    })
  }

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
    const env = sealedEnv(this.dir, options, parameters, identityFallbackConfig(process.env))
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
    const command = [await gitProgram(this.dir), ...args].map(shellQuote).join(' ')
    // Made again where the jail failed before git started (a covered socket went).
    const output = await startedInJail(async () => {
      // Where the sandbox has one, on an overlay of the work tree with .git written through:
      // whatever the hooks do to the tree (a user's untracked file replaced by a link) is
      // dropped with it. Elsewhere the tree is read-only to them: nothing could put back a
      // user's file they rewrote.
      const overlay = jail.sandbox.hookOverlay()
      try {
        const spec = jail.sandbox.spawnSpec(command, this.dir, env, {
          gitWritable: true,
          overlay,
          treeReadOnly: !overlay
        })
        const result = await gitProcess(spec.file, spec.args, {
          cwd: this.dir,
          long: true,
          timeoutMs: this.hookLimitMs?.(),
          silent: true,
          ignoreReturnCode: true,
          input: options.input === undefined ? undefined : Buffer.from(options.input),
          env: spec.env
        })
        const raced =
          !result.timedOut && startRaced(spec, result.exitCode, result.stdout, result.stderr)
        return { result, raced }
      } finally {
        overlay?.settle(true)
        overlay?.dispose()
      }
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
}
