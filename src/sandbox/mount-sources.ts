import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { contains } from './layout.js'

export interface Mount {
  device: string
  /** The folder of its file system it shows (`/` unless a bind mount of part of one). */
  root: string
  point: string
}

/**
 * Where a folder lies when the mount it is under shows part of a file system that is also
 * mounted whole: `/mnt/x/bin` under a bind mount of `/work/tree/tools` at `/mnt/x` lies at
 * `/work/tree/tools/bin`. Undefined elsewhere (no such mount, or mountinfo unreadable). By hand:
 * Node has no call for a path's mount, and realpath does not cross bind mounts.
 */
export function boundFrom(
  folder: string,
  mounts: readonly Mount[] = ownMounts()
): string | undefined {
  // The deepest mount over the folder; of several on one point, the last (the one on top).
  let under: Mount | undefined
  for (const mount of mounts)
    if (contains(mount.point, folder) && mount.point.length >= (under?.point.length ?? 0))
      under = mount
  if (!under || under.root === '/') return undefined
  const whole = mounts.find((mount) => mount.device === under.device && mount.root === '/')
  if (!whole) return undefined
  return join(whole.point, under.root, relative(under.point, folder))
}

/** This process's mounts (/proc/self/mountinfo), read once per call of the trust check. */
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

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescaped(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8))
  )
}
