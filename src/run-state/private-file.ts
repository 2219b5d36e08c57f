import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'

/**
 * Writes Patchsmith's own state in `.git/patchsmith` (the journal, the last attempt) whole and
 * renamed into place, so a kill mid-write leaves the previous file. Whatever can write `.git`
 * (a hook with `git-hooks: true`) could plant a link there: the folder must be a real folder,
 * and the temporary file is made new under a name nobody can guess (O_CREAT|O_EXCL, which also
 * refuses to follow a link), so no write lands in a file the link points at.
 */
export function writePrivateFile(file: string, text: string): void {
  privateFolder(dirname(file))
  const temp = `${file}.${randomBytes(8).toString('hex')}.tmp`
  try {
    writeFileSync(temp, text, { flag: 'wx', mode: 0o600 })
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}

/** The folder of Patchsmith's state, made if missing; refused when it is a link. */
export function privateFolder(folder: string): string {
  makeFolder(folder)
  if (!lstatSync(folder).isDirectory())
    throw new SecurityViolationError(
      `${folder} is not a folder (a link?): Patchsmith keeps its journal there and will not write through it. Remove it and rerun [rule unsafe-state-folder].`,
      { rule: 'unsafe-state-folder', path: folder }
    )
  return folder
}

/**
 * `mkdir -p` that reports what stopped it: Node's recursive mkdir says ENOENT on a read-only
 * file system (EROFS) when the parent exists, so the last step is made again alone to get
 * the real errno.
 */
export function makeFolder(folder: string, mode = 0o700): void {
  try {
    mkdirSync(folder, { recursive: true, mode })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync(dirname(folder)))
      throw error
    mkdirSync(folder, { mode })
  }
}
