/**
 * Disks of their own for tests (root only: mounting needs it): a checkout with a bare origin on a
 * 2 MiB tmpfs, and a way to fill that disk (git and the run then fail as on a runner whose disk
 * is full); a folder on an ext4 file system whose times are whole seconds.
 */
import { execFileSync, spawnSync } from 'node:child_process'
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

/** mkfs.ext4 is there (as root): coarseTimesFolder can be made. */
export const CAN_MAKE_EXT4 =
  CAN_MOUNT &&
  spawnSync('sh', ['-c', 'PATH=$PATH:/usr/sbin:/sbin command -v mkfs.ext4']).status === 0

/**
 * A folder anyone may write, on an ext4 file system with whole-second times (128-byte inodes, as
 * on old file systems; NFS alike), mounted from an image until the test's cleanups.
 */
export function coarseTimesFolder(cleanups: (() => void)[], mebibytes = 64): string {
  const image = join(mkdtempSync(join(tmpdir(), 'patchsmith-coarse-')), 'disk.img')
  execFileSync('truncate', ['-s', `${mebibytes}M`, image])
  execFileSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin mkfs.ext4 -q -I 128 -F ${image}`])
  const mountPoint = mkdtempSync(join(tmpdir(), 'patchsmith-coarse-mount-'))
  execFileSync('mount', ['-o', 'loop', image, mountPoint])
  execFileSync('chmod', ['1777', mountPoint])
  cleanups.push(() => {
    execFileSync('umount', ['-l', mountPoint])
    rmSync(mountPoint, { recursive: true, force: true })
    rmSync(join(image, '..'), { recursive: true, force: true })
  })
  return mountPoint
}

/** What `make` returns, made while the temp folder (TMPDIR) is `folder`. */
export function inTempFolder<T>(folder: string, make: () => T): T {
  const saved = process.env.TMPDIR
  process.env.TMPDIR = folder
  try {
    return make()
  } finally {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
  }
}
