import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { contains } from './layout.js'

export interface Mount {
  device: string
  /** The folder of its file system it shows (`/` unless a bind mount of part of one). */
  root: string
  point: string
}

/** Where a path lies in its file system: the device of the mount it is under, and the path there. */
export interface FileSystemPlace {
  device: string
  within: string
}

/**
 * Where `path` (with links followed) lies in its file system: `/mnt/x/bin` under a bind mount of
 * `/tools` of device 8:1 at `/mnt/x` lies at `/tools/bin` of 8:1, whether or not that file system
 * is also mounted whole (a container's workspace often is not). Undefined where mountinfo is
 * unreadable. By hand: Node has no call for a path's mount, and realpath does not cross bind
 * mounts.
 */
export function placeInFileSystem(
  path: string,
  mounts: readonly Mount[] = ownMounts()
): FileSystemPlace | undefined {
  // The deepest mount over the path; of several on one point, the last (the one on top).
  let under: Mount | undefined
  for (const mount of mounts)
    if (contains(mount.point, path) && mount.point.length >= (under?.point.length ?? 0))
      under = mount
  if (!under) return undefined
  return { device: under.device, within: join(under.root, relative(under.point, path)) }
}

/** This process's mounts (/proc/self/mountinfo), read once per trust judge (hostJudge). */
export function ownMounts(): Mount[] {
  let text: string
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8')
  } catch {
    return []
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .map(([, , device = '', root = '', point = '']) => ({
      device,
      root: unescaped(root),
      point: unescaped(point)
    }))
}

/** A mountinfo path: it writes space, tab, newline and backslash as octal escapes. */
export function unescaped(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8))
  )
}
