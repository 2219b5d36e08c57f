import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { gitDirs } from '../git/index.js'

/**
 * What changes whenever the index file is written: git renames a new file over it (a new inode),
 * and any other write moves its ctime, which no process can set back. Undefined without an index.
 */
export function indexStamp(repoDir: string): string | undefined {
  const stats = lstatSync(join(gitDirs(repoDir)[0]!, 'index'), {
    bigint: true,
    throwIfNoEntry: false
  })
  return stats && `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
}
