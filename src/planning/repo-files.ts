import { dirname } from 'node:path'
import type { Git } from '../git/index.js'
import type { PathPolicy } from '../policy/index.js'

/**
 * Every file `git ls-files` lists (tracked, or untracked and not ignored), sorted, and their
 * folders. The path policy is not applied to the list: it is applied to the few files the search
 * keeps (candidates) and to the folder a new file goes in, which is what a plan can name.
 */
export class RepoFiles {
  /** Folders holding listed files ('' is the root). */
  readonly folders = new Set([''])
  private readonly usable = new Map<string, boolean>([['', true]])

  constructor(
    readonly files: readonly string[],
    private readonly policy: PathPolicy
  ) {
    for (const file of files) {
      for (let dir = dirname(file); dir !== '.' && !this.folders.has(dir); dir = dirname(dir))
        this.folders.add(dir)
    }
  }

  /**
   * Whether a new file may go in the folder: it holds (at any depth) a file the policy allows,
   * as when the folders were those of the allowed files alone. Checked once per folder.
   */
  usableFolder(folder: string): boolean {
    let known = this.usable.get(folder)
    if (known === undefined) {
      known = this.folders.has(folder) && this.holdsAllowedFile(folder)
      this.usable.set(folder, known)
    }
    return known
  }

  /** The first usable folders in sorted order, the root left out. */
  shownFolders(limit: number): string[] {
    const shown: string[] = []
    for (const folder of [...this.folders].sort()) {
      if (shown.length >= limit) break
      if (folder !== '' && this.usableFolder(folder)) shown.push(folder)
    }
    return shown
  }

  private holdsAllowedFile(folder: string): boolean {
    const prefix = `${folder}/`
    // The files under a folder are one run of the sorted list.
    for (let i = firstAtLeast(this.files, prefix); i < this.files.length; i++) {
      const file = this.files[i]!
      if (!file.startsWith(prefix)) break
      if (this.policy.check(file) === undefined) return true
    }
    return false
  }
}

/** `git ls-files`, so .gitignore is respected; sorted, each path once. */
export async function listRepoFiles(git: Git, policy: PathPolicy): Promise<RepoFiles> {
  const out = await git.exec(['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
  const files = [...new Set(out.stdout.split('\0').filter((path) => path.length > 0))].sort()
  return new RepoFiles(files, policy)
}

function firstAtLeast(sorted: readonly string[], key: string): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (sorted[mid]! < key) low = mid + 1
    else high = mid
  }
  return low
}
