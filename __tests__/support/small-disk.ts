/**
 * A checkout with a bare origin on a 2 MiB tmpfs of its own (root only: mounting needs it), and
 * a way to fill that disk: git and the run then fail as on a runner whose disk is full.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface SmallDisk {
  dir: string
  /** The disk's own folder, outside the checkout (a temp folder on the same disk goes here). */
  mountPoint: string
  origin: string
  git(...args: string[]): string
  /** Writes a filler file until the disk is full. */
  fill(): void
  /** Removes the filler again. */
  free(): void
  /** Remounts the disk read-only (a checkout the job cannot write), until `writable()`. */
  readOnly(): void
  writable(): void
}

export const CAN_MOUNT = process.getuid?.() === 0

export function smallDiskCheckout(
  cleanups: (() => void)[],
  files: Record<string, string>,
  /** Its size in MiB: the overlay's folders and the sandbox's probe need more than 2. */
  mebibytes = 2
): SmallDisk {
  const mountPoint = mkdtempSync(join(tmpdir(), 'patchsmith-small-disk-'))
  const size = `size=${mebibytes}m`
  execFileSync('mount', ['-t', 'tmpfs', '-o', size, 'patchsmith-small-disk', mountPoint])
  const remount = (mode: 'ro' | 'rw') =>
    execFileSync('mount', ['-o', `remount,${mode}`, mountPoint])
  cleanups.push(() => {
    execFileSync('umount', ['-l', mountPoint])
    rmSync(mountPoint, { recursive: true, force: true })
  })
  const origin = join(mountPoint, 'origin.git')
  const dir = join(mountPoint, 'work')
  const filler = join(mountPoint, 'filler')
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args]).toString()
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin])
  execFileSync('git', ['init', '-q', '-b', 'main', dir])
  git('config', 'user.name', 'T')
  git('config', 'user.email', 't@example.invalid')
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content)
  git('add', '.')
  git('commit', '-qm', 'initial')
  git('remote', 'add', 'origin', origin)
  git('push', '-q', 'origin', 'main')
  return {
    dir,
    mountPoint,
    origin,
    git,
    fill() {
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k'], { stdio: 'ignore' })
      } catch {
        // dd stops with "No space left on device": that is the point.
      }
    },
    free: () => rmSync(filler, { force: true }),
    readOnly: () => remount('ro'),
    writable: () => remount('rw')
  }
}
