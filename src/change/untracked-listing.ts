import { untrackedPaths, type Git, type RepoStatus } from '../git/index.js'

/**
 * The untracked, not ignored files (the user's own), listed exactly (untrackedPaths) once the
 * preflight has passed: on a large tree the scan runs while the model drafts instead of before
 * it. Settled before anything changes untracked files (repository code, a patch). A listing
 * that fails leaves none (the validation watch then scans for itself).
 */
export class UntrackedListing {
  private files?: readonly string[]

  private constructor(private pending?: Promise<readonly string[] | undefined>) {}

  static none(): UntrackedListing {
    return new UntrackedListing()
  }

  /**
   * Only where the change starts on the checked-out branch with nothing to stash: a stash or a
   * checkout (createChange) would change what the listing reads while it runs.
   */
  static start(git: Git, found: { status: RepoStatus; base: string }): UntrackedListing {
    if (found.status.changed.length > 0 || found.status.branch !== found.base) return this.none()
    return new UntrackedListing(untrackedPaths(git).catch(() => undefined))
  }

  /** The files, once the listing has ended (undefined: none was made, or it failed). */
  async settled(): Promise<readonly string[] | undefined> {
    if (this.pending) {
      this.files = await this.pending
      this.pending = undefined
    }
    return this.files
  }
}
