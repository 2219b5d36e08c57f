import {
  BranchExistsError,
  GitConflictError,
  InvalidInputError,
  PermissionDeniedError
} from '../contract/index.js'
import type { Git, GitOutput } from './git.js'

const REMOTE = 'origin'
const BRANCH_NAME = /^(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/

export interface ChangeBranchOptions {
  branch: string
  /** The branch to start from; the checked-out branch when absent. */
  baseBranch?: string
}

/**
 * The git side of one change: a feature branch made from the base, patches applied and undone
 * on it, one commit, a push, and a rollback that leaves the repository as it was found.
 */
export class ChangeBranch {
  private created = false
  private pushed = false
  private pushEnv?: Record<string, string>
  private readonly touched = new Set<string>()

  private constructor(
    readonly git: Git,
    readonly branch: string,
    readonly base: string,
    readonly baseSha: string,
    readonly hasRemote: boolean
  ) {}

  static async prepare(git: Git, options: ChangeBranchOptions): Promise<ChangeBranch> {
    const { branch } = options
    if (
      !BRANCH_NAME.test(branch) ||
      branch.endsWith('.lock') ||
      branch.endsWith('/') ||
      branch.endsWith('.')
    ) {
      throw new InvalidInputError(
        `Invalid fix_plan.branch_name: "${branch}" is not a safe branch name.`,
        {
          field: 'fix_plan.branch_name',
          rule: 'branch-name'
        }
      )
    }
    const dirty = await git.trackedChanges()
    if (dirty.length > 0) {
      throw new GitConflictError(
        'The working tree has uncommitted changes; commit or stash them first so nothing of yours is lost.',
        { rule: 'dirty-worktree', status: dirty.slice(0, 20) }
      )
    }
    const base = options.baseBranch || (await git.currentBranch())
    if (!base) {
      throw new InvalidInputError(
        'HEAD is detached: set "base-branch" to the branch the change starts from.',
        {
          field: 'base-branch'
        }
      )
    }
    if (branch === base) {
      throw new InvalidInputError(
        `The plan's branch "${branch}" is the base branch; refusing to commit onto it.`,
        {
          field: 'fix_plan.branch_name',
          rule: 'base-branch'
        }
      )
    }
    if (options.baseBranch && (await git.currentBranch()) !== base) await git.checkout(base)
    const baseSha = await git.revParse('HEAD')
    const hasRemote = await git.hasRemote(REMOTE)
    const exists =
      (await git.localBranchExists(branch)) ||
      (hasRemote && (await git.remoteBranchExists(REMOTE, branch)))
    if (exists) {
      throw new BranchExistsError(
        `Branch "${branch}" already exists; delete it or choose another branch name.`,
        {
          branch
        }
      )
    }
    return new ChangeBranch(git, branch, base, baseSha, hasRemote)
  }

  async create(): Promise<void> {
    await this.git.createBranch(this.branch, this.baseSha)
    this.created = true
  }

  /** Applies a canonical patch after `git apply --check`; returns git's answer when it refuses. */
  async apply(patch: string, paths: readonly string[]): Promise<GitOutput> {
    paths.forEach((path) => this.touched.add(path))
    return this.git.applyChecked(patch)
  }

  /** Back to the base content, keeping the branch. */
  async reset(): Promise<void> {
    await this.git.resetHard(this.baseSha)
    await this.git.cleanPaths([...this.touched])
  }

  async commit(message: string, signoff: boolean): Promise<string> {
    return this.git.commit(message, signoff)
  }

  async push(env?: Record<string, string>): Promise<void> {
    if (!this.hasRemote) {
      throw new PermissionDeniedError(`No remote "${REMOTE}" to push to; run with push disabled.`, {
        remote: REMOTE
      })
    }
    const out = await this.git.push(REMOTE, `HEAD:refs/heads/${this.branch}`, env)
    if (out.exitCode === 0) {
      this.pushed = true
      this.pushEnv = env
      return
    }
    const text = `${out.stderr}\n${out.stdout}`.trim()
    const details = { branch: this.branch, stderr: text.slice(-2_000) }
    if (/non-fast-forward|fetch first|\(conflict\)|stale info/i.test(text)) {
      throw new GitConflictError(
        `Push of "${this.branch}" was rejected as a conflict: ${lastLine(text)}`,
        details
      )
    }
    throw new PermissionDeniedError(
      `Push of "${this.branch}" was refused: ${lastLine(text)}`,
      details
    )
  }

  /** Undo everything this change did: work tree, local branch, and the remote branch if pushed. */
  async rollback(): Promise<string[]> {
    const problems: string[] = []
    const attempt = async (step: string, action: () => Promise<unknown>) => {
      try {
        await action()
      } catch (error) {
        problems.push(`${step}: ${(error as Error).message}`)
      }
    }
    await attempt('reset', () => this.reset())
    await attempt('checkout base', () => this.git.checkout(this.base))
    if (this.created) await attempt('delete branch', () => this.git.deleteLocalBranch(this.branch))
    if (this.pushed) {
      await attempt('delete remote branch', async () => {
        const out = await this.git.push(REMOTE, `:refs/heads/${this.branch}`, this.pushEnv)
        if (out.exitCode !== 0) throw new Error(out.stderr.trim())
      })
    }
    this.created = false
    this.pushed = false
    return problems
  }
}

function lastLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim().length > 0)
  return lines[lines.length - 1]?.trim() ?? 'no message'
}
