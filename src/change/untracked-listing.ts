import { PatchsmithError } from '../contract/index.js'
import { untrackedPaths, type Git, type RepoStatus } from '../git/index.js'

/** None for a listing that failed; but a git that had to be stopped (a fifo) ends the run. */
function failedListing(error: unknown): undefined {
  if (error instanceof PatchsmithError) throw error
  return undefined
}

/**
 * The untracked, not ignored files (the user's own), listed exactly (untrackedPaths) beside the
 * preflight's status (both only read) and while the model drafts: on a large tree neither scan
 * waits for the other. Kept only where the preflight passed on the checked-out branch with
 * nothing to stash; settled before anything changes untracked files (repository code, a patch).
 * A listing that fails leaves none (the validation watch then scans for itself), unless its git
 * had to be stopped (fifo-watch.ts): settled() then throws that.
 */
export class UntrackedListing {
  private files?: readonly string[]

  private constructor(private pending?: Promise<readonly string[] | undefined>) {
    // A listing no one waits for (a later step failed first) never ends the process as an
    // unhandled rejection; settled() still throws its error.
    pending?.catch(() => undefined)
  }

  static none(): UntrackedListing {
    return new UntrackedListing()
  }

  /**
   * What `preflight` found, and the listing made beside it (where `wanted`). It is kept where the
   * change starts on the checked-out branch with nothing to stash; else none, once it has ended:
   * a stash or a checkout (createChange) would change what it reads while it runs.
   */
  static async beside<Found extends { status: RepoStatus; base: string }>(
    git: Git,
    wanted: boolean,
    preflight: () => Promise<Found>
  ): Promise<{ found: Found; listing: UntrackedListing }> {
    const listing = wanted
      ? new UntrackedListing(untrackedPaths(git).catch(failedListing))
      : UntrackedListing.none()
    let found: Found
    try {
      found = await preflight()
    } catch (error) {
      await listing.settled()
      throw error
    }
    if (found.status.changed.length === 0 && found.status.branch === found.base)
      return { found, listing }
    await listing.settled()
    return { found, listing: UntrackedListing.none() }
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
