import type { Git } from './git.js'
import type { PushAuth } from './push-auth.js'
import { pushError, pushPermissionError, remoteReadError } from './remote-errors.js'

/** What a ref on origin held when it was read: its commit (none: no such ref) and its file. */
export interface RefFileVersion {
  oid?: string
  text?: string
}

const FILE = 'ledger.json'

// --porcelain: "!\t<src>:<dst>\t[rejected] (stale info)" when the lease did not hold (a ref
// created meanwhile: "fetch first", "already exists"); origin refusing a write because another
// push holds the ref's lock, or its old value changed under it, is the same lost race.
const LOST_RACE =
  /\[rejected\] \((stale info|fetch first|already exists|non-fast-forward)\)|\[remote rejected\] \((failed to update ref|cannot lock ref[^)]*|incorrect old value provided)\)/
const AUTHOR = {
  GIT_AUTHOR_NAME: 'Patchsmith',
  GIT_AUTHOR_EMAIL: 'patchsmith@users.noreply.github.com',
  GIT_COMMITTER_NAME: 'Patchsmith',
  GIT_COMMITTER_EMAIL: 'patchsmith@users.noreply.github.com'
}

/**
 * One small file kept on origin under a ref of its own (not a branch: no workflow runs on it,
 * no checkout sees it), each version a parentless commit of that one file. It is written by
 * compare-and-swap: a push with `--force-with-lease` against the commit that was read, so of
 * two runs that read the same version only one write lands and the other reads again. Every
 * command goes through the run's sealed Git; the token is in the remote commands' own
 * environment only (push-auth).
 */
export class RemoteRefFile {
  constructor(
    private readonly git: Git,
    readonly ref: string,
    private readonly auth?: PushAuth,
    private readonly remote = 'origin'
  ) {
    if (!/^refs\/[a-z0-9][a-z0-9/_-]*$/.test(ref) || ref.startsWith('refs/heads/'))
      throw new Error(`Not a ref for a file: ${ref}`)
  }

  /** The file as origin holds it now (ls-remote, then a fetch of that ref when there is one). */
  async read(): Promise<RefFileVersion> {
    const url = await this.git.remoteTarget(this.remote)
    const env = this.auth?.env
    const remote = async (args: string[]) => {
      const out = await this.git.exec(args, { env, network: true, allowFailure: true })
      if (out.exitCode !== 0) throw remoteReadError(this.remote, out.stderr || out.stdout, url)
      return out
    }
    const listed = await remote(['ls-remote', url, this.ref])
    if (!listed.stdout.trim()) return {}
    await remote(['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', url, this.ref])
    // The fetched commit, which may be newer than the one listed: the lease is against it.
    const oid = (
      await this.git.exec(['rev-parse', '--verify', 'FETCH_HEAD^{commit}'])
    ).stdout.trim()
    const shown = await this.git.exec(['cat-file', 'blob', `${oid}:${FILE}`], {
      allowFailure: true
    })
    return { oid, text: shown.exitCode === 0 ? shown.stdout : undefined }
  }

  /**
   * Writes `text` where `read` found `expected`; false when origin's ref moved meanwhile (the
   * caller reads again). Any other failure of the push throws.
   */
  async write(text: string, expected: RefFileVersion): Promise<boolean> {
    const blob = (
      await this.git.exec(['hash-object', '-w', '--stdin'], { input: text })
    ).stdout.trim()
    const tree = (
      await this.git.exec(['mktree'], { input: `100644 blob ${blob}\t${FILE}\n` })
    ).stdout.trim()
    const commit = (
      await this.git.exec(['commit-tree', '--no-gpg-sign', '-m', 'patchsmith ledger', tree], {
        env: AUTHOR
      })
    ).stdout.trim()
    const out = await this.git.push(
      this.remote,
      `${commit}:${this.ref}`,
      this.auth?.env,
      `${this.ref}:${expected.oid ?? ''}`
    )
    if (out.exitCode === 0) return true
    if (LOST_RACE.test(out.stdout)) return false
    const url = await this.git.remoteTarget(this.remote)
    throw pushPermissionError(this.remote, out, url) ?? pushError(this.ref, out)
  }
}
