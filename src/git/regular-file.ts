import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'

/**
 * How far past its length a regular file may be read: one written meanwhile grows a little,
 * while a file of procfs or sysfs says 0 or a page and may never end (/proc/self/pagemap).
 */
const MOST_PAST_LENGTH = 64 * 1024
const CHUNK = 64 * 1024
/** Past this a config file or include is refused, not read: a sparse file of GBs costs no disk. */
export const MOST_CONFIG_BYTES = 16 * 1024 * 1024

/**
 * A file's bytes, read only when it is a regular file (links followed, as git follows them):
 * opened without waiting (O_NONBLOCK), so a fifo at a config, include or index path never holds
 * the run up (a blocking open in node stops it whole, and the fifo watch with it). `special` for
 * anything else, and for a file that goes on past its length (MOST_PAST_LENGTH): an include of
 * /proc/self/pagemap filled memory before) or that cannot be read; undefined where it cannot be
 * opened.
 */
export function readRegularFile(
  path: string,
  /** A file longer than this is `special` too, not read (a config: no need of hundreds of MB). */
  most = Infinity
): Buffer | 'special' | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
  } catch {
    return undefined
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > most) return 'special'
    // In whole chunks: some files of procfs take reads of whole records only (pagemap: 8 bytes).
    const chunks: Buffer[] = []
    let length = 0
    for (let read = -1; read !== 0 && length <= stat.size + MOST_PAST_LENGTH; length += read) {
      const chunk = Buffer.allocUnsafe(CHUNK)
      read = readSync(fd, chunk, 0, CHUNK, null)
      chunks.push(chunk.subarray(0, read))
    }
    return length <= stat.size + MOST_PAST_LENGTH ? Buffer.concat(chunks, length) : 'special'
  } catch {
    // Opened, yet no read succeeds (/proc/self/mem: EIO): a file git cannot read through either.
    return 'special'
  } finally {
    closeSync(fd)
  }
}
