import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats
} from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { InvalidInputError } from '../contract/index.js'

/**
 * Writes one of the run's outputs (the result file, the pull-request body) as a user would
 * expect, and never deletes what is not Patchsmith's: a regular file is replaced, a character
 * device (`/dev/null`) or a fifo that a process reads is written to, and only a link is taken away
 * (a path in the work tree is reachable by validation, which may leave a link at its name; the
 * output is never written through one). Under /dev, which no jail can write, a link is the
 * system's (`/dev/stdout`) and is followed. A socket, a block device or a folder is refused
 * (INVALID_INPUT naming the setting), as is a fifo nobody reads: the run would wait forever.
 */
export function writeOutputFile(path: string, text: string, field: string): void {
  const fd = openOutput(path, field)
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
}

/**
 * Refuses an output path that names something Patchsmith cannot write as a file (before a run),
 * and pins the real folder it names then: a folder on the way that validation replaces by a link
 * (`ln -sfn /etc out`) is taken away and made again when the file is written, never followed.
 */
export function checkOutputPath(path: string, field: string): void {
  if (contains('/dev', path)) {
    systemTarget(path, field)
    return
  }
  const found = lstatSync(path, { throwIfNoEntry: false })
  if (found && !found.isSymbolicLink()) refuseUnwritable(path, field, found)
  const folder = resolve(dirname(path))
  pinnedFolders.set(folder, realFolder(folder))
}

/** Folders of output paths as they were before the run: resolved path → its real path then. */
const pinnedFolders = new Map<string, string>()

/** The real path of `folder`, or of its nearest existing parent with the rest appended. */
function realFolder(folder: string): string {
  const rest: string[] = []
  for (let at = folder; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...rest.reverse())
    } catch {
      if (at === dirname(at)) return folder
      rest.push(basename(at))
    }
  }
}

/**
 * Makes the pinned real folder exist again as folders only: it held no link when pinned, so a
 * link on the way now was made during the run and is taken away (never followed); anything else
 * but a folder there is refused.
 */
function settleFolder(real: string, path: string, field: string): void {
  let at = ''
  for (const part of real.split(sep).filter(Boolean)) {
    at = `${at}${sep}${part}`
    const found = lstatSync(at, { throwIfNoEntry: false })
    if (found?.isDirectory()) continue
    if (found?.isSymbolicLink()) unlinkSync(at)
    else if (found)
      throw new InvalidInputError(
        `${field} ${path}: ${at} was a folder when the run started and is no longer one; nothing was written there.`,
        { field, path, rule: 'not-a-file' }
      )
    mkdirSync(at)
  }
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW
/** A device or fifo is opened as it is: never created, never truncated, never followed. */
const EXISTING = constants.O_WRONLY | constants.O_NOFOLLOW

function openOutput(given: string, field: string): number {
  if (contains('/dev', given)) return openSystemPath(given, field)
  const pinned = pinnedFolders.get(resolve(dirname(given)))
  if (pinned) settleFolder(pinned, given, field)
  const path = pinned ? join(pinned, basename(given)) : given
  const found = lstatSync(path, { throwIfNoEntry: false })
  if (found?.isSymbolicLink()) unlinkSync(path)
  else if (found?.isCharacterDevice()) return openSync(path, EXISTING)
  else if (found?.isFIFO()) return openFifo(path, field, EXISTING)
  else if (found) refuseUnwritable(path, field, found)
  mkdirSync(dirname(path), { recursive: true })
  // O_NOFOLLOW: a link made at the name since the look above is refused, not written through.
  return openSync(path, CREATE, 0o644)
}

/** `/dev/null`, `/dev/stdout` (whatever stdout is: a pipe, a terminal, a file): as `>` opens it. */
function openSystemPath(path: string, field: string): number {
  const found = systemTarget(path, field)
  if (found.isFIFO()) return openFifo(path, field, constants.O_WRONLY)
  return openSync(path, constants.O_WRONLY | (found.isFile() ? constants.O_TRUNC : 0))
}

function systemTarget(path: string, field: string): Stats {
  const found = statSync(path, { throwIfNoEntry: false })
  if (!found)
    throw new InvalidInputError(`${field} ${path} does not exist, and nothing is made in /dev.`, {
      field,
      path,
      rule: 'not-a-file'
    })
  refuseUnwritable(path, field, found)
  return found
}

/** A fifo with a reader: opened without waiting first, to learn that one is there. */
function openFifo(path: string, field: string, flags: number): number {
  let probe: number
  try {
    probe = openSync(path, flags | constants.O_NONBLOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error
    throw new InvalidInputError(
      `${field} ${path} is a fifo that no process reads: start its reader first, or give a file.`,
      { field, path, rule: 'not-a-file' }
    )
  }
  try {
    // With a reader there, a blocking open returns at once; writes then wait for the reader.
    return openSync(path, flags)
  } finally {
    closeSync(probe)
  }
}

function refuseUnwritable(path: string, field: string, found: Stats): void {
  if (found.isFile() || found.isCharacterDevice() || found.isFIFO()) return
  const kind = found.isSocket()
    ? 'a socket'
    : found.isBlockDevice()
      ? 'a block device'
      : found.isDirectory()
        ? 'a folder'
        : 'not a file'
  throw new InvalidInputError(
    `${field} ${path} is ${kind}: Patchsmith writes a file there and deletes nothing it did not make; give the path of a file.`,
    { field, path, rule: 'not-a-file' }
  )
}

function contains(outer: string, inner: string): boolean {
  const path = relative(outer, inner)
  return path === '' || (!path.startsWith('..') && !isAbsolute(path))
}
