import { PermissionDeniedError } from '../contract/index.js'
import { assertExpectedRemote } from './expected-remote.js'
import type { GitOutput } from './git-output.js'
import { GitRunner } from './git-runner.js'
import { ownRemoteUrl } from './remote-config.js'
import { remoteReadError } from './remote-errors.js'

/** The commands that talk to a remote: always to its one checked URL, never by name. */
export class GitRemote extends GitRunner {
  /** Each remote's URL, resolved and checked once (remoteTarget). */
  private readonly remotes = new Map<string, Promise<string>>()

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
}
