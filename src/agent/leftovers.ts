import { ignoredPaths, removeUntracked, type Git } from '../git/index.js'
import type { OverlayRecord } from '../sandbox/index.js'

/**
 * What commands created that git ignores (a cache, build output, a marker a test left), so it
 * can be removed before the next run of the tests: a test must not pass after the fix by what
 * it wrote on the base or in an earlier attempt. On an overlay its record names every path a
 * command created; without one, the ignored paths that were not there before are (a new file
 * inside an ignored folder that was already there is not seen).
 */
export class IgnoredLeftovers {
  private constructor(
    private readonly git: Git,
    private readonly record: OverlayRecord | undefined,
    private readonly before: ReadonlySet<string>
  ) {}

  /** Taken before the commands run; `record`: the overlay they run on, when there is one. */
  static async before(git: Git, record: OverlayRecord | undefined): Promise<IgnoredLeftovers> {
    const before = record ? new Set<string>() : new Set(await ignoredPaths(git))
    return new IgnoredLeftovers(git, record, before)
  }

  /** What the commands created since, removed (`git clean -x`: never a tracked file, never through a link). */
  async remove(): Promise<void> {
    const record = this.record
    const created = record
      ? [...record.touched].filter((path) => record.isCreated(path) && !record.kept(path))
      : (await ignoredPaths(this.git)).filter((path) => !this.before.has(path))
    if (created.length > 0) await removeUntracked(this.git, created)
  }
}
