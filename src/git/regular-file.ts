import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'

/**
 * A file's bytes, read only when it is a regular file (links followed, as git follows them):
 * opened without waiting (O_NONBLOCK), so a fifo at a config, include or index path never holds
 * the run up (a blocking open in node stops it whole, and the fifo watch with it). `special` for
 * anything else; undefined where it cannot be opened.
 */
export function readRegularFile(path: string): Buffer | 'special' | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
  } catch {
    return undefined
  }
  try {
    if (!fstatSync(fd).isFile()) return 'special'
    return readFileSync(fd)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}
