import { lstatSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'

export const MAX_FILE_BYTES = 512 * 1024

/**
 * Reads files of the work tree by repository path without following symlinks: a planned path
 * that runs through a link could otherwise read or write outside the repository.
 */
export class WorktreeFiles {
  constructor(readonly root: string) {}

  /** The file's text, or null when it does not exist. */
  read(path: string): string | null {
    const segments = path.split('/')
    let current = this.root
    for (let i = 0; i < segments.length; i++) {
      current = join(current, segments[i]!)
      let stat
      try {
        stat = lstatSync(current)
      } catch {
        return null
      }
      if (stat.isSymbolicLink()) {
        throw new SecurityViolationError(
          `Refused "${path}": ${segments.slice(0, i + 1).join('/')} is a symbolic link.`,
          {
            path,
            rule: 'symlink'
          }
        )
      }
      if (i === segments.length - 1) {
        if (!stat.isFile()) {
          throw new SecurityViolationError(`Refused "${path}": it is not a regular file.`, {
            path,
            rule: 'not-a-file'
          })
        }
        if (stat.size > MAX_FILE_BYTES) {
          throw new SecurityViolationError(
            `Refused "${path}": ${stat.size} bytes is over the ${MAX_FILE_BYTES}-byte limit.`,
            {
              path,
              rule: 'file-too-large'
            }
          )
        }
        return readFileSync(current, 'utf8')
      }
    }
    return null
  }

  isExecutable(path: string): boolean {
    try {
      return (lstatSync(join(this.root, path)).mode & 0o111) !== 0
    } catch {
      return false
    }
  }
}
