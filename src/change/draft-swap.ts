import type { GitOutput } from '../git/index.js'
import { BaseSwap } from './base-swap.js'

export { clearWays } from './base-swap.js'

/**
 * The applied draft's way to the base and back for the base check (BaseSwap), while it has one:
 * taken at each apply, dropped at any other change to the work tree or index.
 */
export class DraftSwap {
  private swap?: BaseSwap
  /** The work tree holds the swap's base files now (toBase went that way). */
  private swapped = false

  /** Applies the draft (`apply`) with a swap of `paths` taken around it. */
  async apply(
    root: string,
    paths: readonly string[],
    apply: () => Promise<GitOutput>
  ): Promise<GitOutput> {
    this.drop()
    const swap = BaseSwap.before(root, paths)
    const out = await apply()
    if (out.exitCode === 0 && swap?.afterApply()) this.swap = swap
    else swap?.dispose()
    return out
  }

  /** While the work tree holds the base's files: the index file that sees the base too. */
  get indexFile(): string | undefined {
    return this.swapped ? this.swap?.indexFile : undefined
  }

  /** The base's files in the work tree; false when the swap declines (the caller resets). */
  toBase(): boolean {
    if (!this.swap?.toBase()) return false
    this.swapped = true
    return true
  }

  /**
   * After toBase: true when the draft is back by the swap, false when the swap failed (the
   * caller resets and applies again), undefined when toBase did not go this way.
   */
  toDraft(): boolean | undefined {
    if (!this.swapped) return undefined
    this.swapped = false
    return this.swap?.toDraft() ?? false
  }

  drop(): void {
    this.swap?.dispose()
    this.swap = undefined
    this.swapped = false
  }
}
