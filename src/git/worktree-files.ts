import { lstatSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { InvalidInputError, SecurityViolationError } from '../contract/index.js'

const MAX_FILE_BYTES = 512 * 1024

/**
 * Reads files of the work tree by repository path without following symlinks: a planned path
 * that runs through a link could otherwise read or write outside the repository.
 */
export class WorktreeFiles {
  constructor(readonly root: string) {}

  /** The file's text, or null when it does not exist. */
  read(path: string): string | null {
    const found = walkPath(this.root, path)
    if (found.kind === 'symlink') {
      throw new SecurityViolationError(`Refused "${path}": ${found.at} is a symbolic link.`, {
        path,
        rule: 'symlink'
      })
    }
    if (found.kind === 'not-a-file') {
      throw new SecurityViolationError(`Refused "${path}": it is not a regular file.`, {
        path,
        rule: 'not-a-file'
      })
    }
    if (found.kind !== 'file') return null
    if (found.size > MAX_FILE_BYTES) {
      throw new SecurityViolationError(
        `Refused "${path}": ${found.size} bytes is over the ${MAX_FILE_BYTES}-byte limit.`,
        { path, rule: 'file-too-large' }
      )
    }
    const text = utf8Text(readFileSync(found.full))
    if (text === undefined) {
      throw new InvalidInputError(
        `"${path}" is not a UTF-8 text file (binary, or another encoding): Patchsmith edits text only, so take it out of the plan or convert it to UTF-8.`,
        { path, field: 'fix_plan.file_changes', rule: 'not-text' }
      )
    }
    return text
  }

  isExecutable(path: string): boolean {
    try {
      return (lstatSync(join(this.root, path)).mode & 0o111) !== 0
    } catch {
      return false
    }
  }
}

/** What lstat finds on the way from `root` to a repository path, one component at a time. */
type PathWalk =
  | { kind: 'missing' }
  /** `at`: the repository path of the first link on the way (or at the end). */
  | { kind: 'symlink'; at: string }
  /** `at`: a component before the end that is not a folder. */
  | { kind: 'not-a-folder'; at: string }
  /** The end exists and is not a regular file. */
  | { kind: 'not-a-file' }
  | { kind: 'file'; full: string; size: number }

/**
 * Walks a repository path with lstat, never following a link: a link anywhere on the way could
 * lead a read or a write outside the repository.
 */
export function walkPath(root: string, path: string): PathWalk {
  const segments = path.split('/')
  let current = root
  for (let i = 0; i < segments.length; i++) {
    current = join(current, segments[i]!)
    let stat
    try {
      stat = lstatSync(current)
    } catch {
      return { kind: 'missing' }
    }
    const at = segments.slice(0, i + 1).join('/')
    if (stat.isSymbolicLink()) return { kind: 'symlink', at }
    if (i < segments.length - 1) {
      if (!stat.isDirectory()) return { kind: 'not-a-folder', at }
    } else if (!stat.isFile()) {
      return { kind: 'not-a-file' }
    } else {
      return { kind: 'file', full: current, size: stat.size }
    }
  }
  return { kind: 'missing' }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The file's text, or undefined when it is binary (a NUL byte) or not valid UTF-8. */
function utf8Text(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined
  try {
    return UTF8.decode(bytes)
  } catch {
    return undefined
  }
}
