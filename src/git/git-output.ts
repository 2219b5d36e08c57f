import {
  PatchsmithError,
  worldFailure,
  type AgentError,
  type ErrorDetails
} from '../contract/index.js'

export interface GitOutput {
  exitCode: number
  stdout: string
  stderr: string
  /** Killed at its limit (a command with hooks: GitRunner.hookLimitMs), exit code 124. */
  timedOut?: boolean
}

export interface GitExecOptions {
  allowFailure?: boolean
  input?: string
  /** Added to the environment of this one process (the push credential goes here). */
  env?: Record<string, string>
  /**
   * The command talks to a remote: it also gets what a push needs from the environment (ssh
   * agent, proxies, the user's credential helper's variables), and the repository's config is
   * first checked for keys that would run a program or redirect the push.
   */
  network?: boolean
  /** Let the repository's hooks run (they are off for every other command). */
  hooks?: boolean
}

export interface CommitOptions {
  signoff: boolean
  hooks?: boolean
  /**
   * With hooks: called before the commit; the function it returns is called once git has
   * ended, however it ended, to put back what the hooks left in the work tree.
   */
  guardHooks?: () => Promise<() => Promise<void>>
  /** With hooks: variables on top of git's own (where the commit writes its objects). */
  env?: Record<string, string>
}

export interface BranchCommit {
  sha: string
  parents: string[]
  tree: string
  message: string
}

/**
 * A git command that failed where no failure was expected. It carries a contract code so a run
 * that ends on it says so: the machine's fault git names (a full disk, a read-only file system,
 * a lock another process holds) as worldFailure names it, a config file git cannot parse as
 * ENVIRONMENT_ERROR, INVALID_INPUT outside a repository, GIT_CONFLICT otherwise.
 */
export class GitCommandError extends PatchsmithError {
  constructor(
    readonly args: readonly string[],
    readonly output: GitOutput
  ) {
    const { code, message, details, recoverable } = gitFailure(args, output)
    super(code, message, details as ErrorDetails, recoverable)
  }
}

/** What git says of a config file it cannot parse (config.c's messages). */
const CONFIG_UNREADABLE =
  /\bbad (?:numeric |boolean )?config (?:line|value|variable)\b|\bexceeded maximum include depth\b|\binvalid config format\b/i

function gitFailure(args: readonly string[], output: GitOutput): AgentError {
  const text = output.stderr.trim() || output.stdout.trim()
  const failed = `git ${args.join(' ')} failed (exit ${output.exitCode}): ${text}`
  const details = { command: `git ${args[0] ?? ''}`, stderr: text.slice(-2_000) }
  const world = worldFailure(new Error(failed))
  if (world) return { ...world, details: { ...world.details, ...details } }
  if (CONFIG_UNREADABLE.test(text))
    return {
      code: 'ENVIRONMENT_ERROR',
      message: `git cannot read a config file (the repository's, the user's or one they include), so nothing is run: ${text} Fix or remove the line git names, then run again.`,
      details: { rule: 'git-config-unreadable', ...details },
      recoverable: false
    }
  return {
    code: /not a git repository/i.test(text) ? 'INVALID_INPUT' : 'GIT_CONFLICT',
    message: failed,
    details: { rule: 'git-command-failed', ...details },
    recoverable: false
  }
}

const FIELD = '\x1f'
const RECORD = '\x1e'

/** `git log --format` for parseCommits: one record per commit. */
export const COMMIT_FORMAT = `--format=%H${FIELD}%P${FIELD}%T${FIELD}%B${RECORD}`

/** Parses `git log` in COMMIT_FORMAT, oldest first. */
export function parseCommits(stdout: string): BranchCommit[] {
  return stdout
    .split(RECORD)
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.length > 0)
    .map((record) => {
      const [sha = '', parents = '', tree = '', message = ''] = record.split(FIELD)
      return { sha, parents: parents.split(' ').filter(Boolean), tree, message: message.trim() }
    })
    .reverse()
}

/** `diff-tree --patch <ref>`: the commit's SHA on the first line, then its patch. */
export function parseCommitPatch(stdout: string): { sha: string; diff: string } {
  const newline = stdout.indexOf('\n')
  const sha = (newline < 0 ? stdout : stdout.slice(0, newline)).trim()
  return { sha, diff: newline < 0 ? '' : stdout.slice(newline + 1) }
}
