import { getExecOutput } from '@actions/exec'

export interface GitOutput {
  exitCode: number
  stdout: string
  stderr: string
}

export interface GitExecOptions {
  allowFailure?: boolean
  input?: string
  env?: Record<string, string>
}

export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly output: GitOutput
  ) {
    super(
      `git ${args.join(' ')} failed (exit ${output.exitCode}): ${output.stderr.trim() || output.stdout.trim()}`
    )
    this.name = 'GitCommandError'
  }
}

// Repository config and hooks can be written by code the model wrote; none of it may run here.
const SAFE_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.quotePath=false'
]
const IDENTITY = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com'
}

/**
 * The only door to git: argument arrays (no shell), hooks and fsmonitor off, no prompts, and a
 * count of the processes started so the cost of a run can be reported.
 */
export class Git {
  processCount = 0
  private identity: string[] = []

  private constructor(readonly dir: string) {}

  static async open(dir: string): Promise<Git> {
    const git = new Git(dir)
    const top = await git.exec(['rev-parse', '--show-toplevel'], { allowFailure: true })
    if (top.exitCode !== 0) throw new GitCommandError(['rev-parse', '--show-toplevel'], top)
    const name = await git.exec(['config', 'user.name'], { allowFailure: true })
    if (name.stdout.trim() === '' && !process.env.GIT_COMMITTER_NAME) {
      git.identity = ['-c', `user.name=${IDENTITY.name}`, '-c', `user.email=${IDENTITY.email}`]
    }
    return git
  }

  async exec(args: readonly string[], options: GitExecOptions = {}): Promise<GitOutput> {
    this.processCount++
    const output = await getExecOutput('git', [...SAFE_CONFIG, ...this.identity, ...args], {
      cwd: this.dir,
      silent: true,
      ignoreReturnCode: true,
      input: options.input === undefined ? undefined : Buffer.from(options.input),
      env: { ...stringEnv(process.env), GIT_TERMINAL_PROMPT: '0', ...options.env }
    })
    if (output.exitCode !== 0 && !options.allowFailure) throw new GitCommandError(args, output)
    return output
  }

  async currentBranch(): Promise<string> {
    const out = await this.exec(['symbolic-ref', '--short', '-q', 'HEAD'], { allowFailure: true })
    return out.stdout.trim()
  }

  async revParse(ref: string): Promise<string> {
    return (
      await this.exec(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])
    ).stdout.trim()
  }

  async localBranchExists(branch: string): Promise<boolean> {
    const out = await this.exec(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
      allowFailure: true
    })
    return out.exitCode === 0
  }

  async remoteBranchExists(remote: string, branch: string): Promise<boolean> {
    const out = await this.exec(
      ['ls-remote', '--exit-code', '--heads', remote, `refs/heads/${branch}`],
      {
        allowFailure: true
      }
    )
    if (out.exitCode === 0) return true
    if (out.exitCode === 2) return false
    throw new GitCommandError(['ls-remote', remote], out)
  }

  async hasRemote(remote: string): Promise<boolean> {
    return (await this.exec(['remote', 'get-url', remote], { allowFailure: true })).exitCode === 0
  }

  async remoteUrl(remote: string): Promise<string> {
    return (await this.exec(['remote', 'get-url', remote])).stdout.trim()
  }

  /** Changes to tracked files, as `git status --porcelain` lines (untracked files are not ours). */
  async trackedChanges(): Promise<string[]> {
    const out = await this.exec(['status', '--porcelain=v1', '--untracked-files=no'])
    return out.stdout.split('\n').filter((line) => line.length > 0)
  }

  async createBranch(branch: string, startPoint: string): Promise<void> {
    await this.exec(['checkout', '--quiet', '-b', branch, startPoint])
  }

  async checkout(ref: string): Promise<void> {
    await this.exec(['checkout', '--quiet', ref])
  }

  async deleteLocalBranch(branch: string): Promise<void> {
    await this.exec(['branch', '-D', branch])
  }

  async resetHard(ref: string): Promise<void> {
    await this.exec(['reset', '--quiet', '--hard', ref])
  }

  /** Removes untracked files, limited to the given paths so a user's own files are never touched. */
  async cleanPaths(paths: readonly string[]): Promise<void> {
    if (paths.length > 0) await this.exec(['clean', '-f', '-q', '--', ...paths])
  }

  /** `git apply --check` as the gate, then the same patch applied to the index and work tree. */
  async applyChecked(patch: string): Promise<GitOutput> {
    const check = await this.exec(['apply', '--check', '--index', '--whitespace=nowarn', '-'], {
      input: patch,
      allowFailure: true
    })
    if (check.exitCode !== 0) return check
    return this.exec(['apply', '--index', '--whitespace=nowarn', '-'], {
      input: patch,
      allowFailure: true
    })
  }

  async commit(message: string, signoff: boolean): Promise<string> {
    const args = ['commit', '--quiet', '--no-verify', '--cleanup=whitespace', '-F', '-']
    if (signoff) args.push('--signoff')
    await this.exec(args, { input: message })
    return this.revParse('HEAD')
  }

  /** `git patch-id --stable` of a commit: survives a rebase or cherry-pick that changes its SHA. */
  async patchId(sha: string): Promise<string> {
    const diff = await this.exec(['diff-tree', '--patch', '--no-color', '--full-index', sha])
    const out = await this.exec(['patch-id', '--stable'], { input: diff.stdout })
    return out.stdout.trim().split(/\s+/)[0] ?? ''
  }

  async push(remote: string, refspec: string, env?: Record<string, string>): Promise<GitOutput> {
    return this.exec(['push', '--porcelain', '--no-verify', remote, refspec], {
      allowFailure: true,
      env
    })
  }

  async configValues(key: string): Promise<string[]> {
    const out = await this.exec(['config', '--get-all', key], { allowFailure: true })
    return out.stdout.split('\n').filter((line) => line.length > 0)
  }
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value
  return result
}
