import { readFileSync } from 'node:fs'
import { contains } from './layout.js'
import { unescaped } from './mount-sources.js'

export interface MountTable {
  /** Every mount point of this mount namespace (octal escapes undone), `/` among them. */
  points: string[]
  /** Each mount as its id and point (`id point`): a mount made at a point where one was taken away differs. */
  mounts: string[]
  /** procfs hides other users' processes here (hidepid): their sockets are in no list read. */
  processesHidden: boolean
}

/** This mount namespace's mounts, from /proc/self/mountinfo. */
export function mountTable(): MountTable {
  let text: string
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8')
  } catch {
    return { points: [], mounts: [], processesHidden: true }
  }
  const points: string[] = []
  const mounts: string[] = []
  let processesHidden = false
  for (const line of text.split('\n')) {
    const fields = line.split(' ')
    const point = fields[4]
    if (!point) continue
    const decoded = unescaped(point)
    points.push(decoded)
    mounts.push(`${fields[0]} ${decoded}`)
    // After the separator: the file system's type, its source, its own options.
    const rest = fields.slice(fields.indexOf('-') + 1)
    if (decoded === '/proc' && rest[0] === 'proc')
      processesHidden ||= /(^|,)hidepid=(?!0(,|$)|off(,|$))/.test(rest[2] ?? '')
  }
  return { points, mounts, processesHidden }
}

/**
 * The parts of `trees` a process this host cannot list (another mount namespace's: a
 * container's daemon, the host outside a container) can bind a socket in: a tree on a mount
 * other than the root one, and every folder mounted inside a tree. What is on the root mount
 * is bound by processes whose sockets the lists name.
 */
export function sharedParts(trees: readonly string[], points: readonly string[]): string[] {
  const parts = new Set<string>()
  for (const tree of trees) {
    const holder = points
      .filter((point) => contains(point, tree))
      .sort((a, b) => b.length - a.length)[0]
    if (holder !== undefined && holder !== '/') parts.add(tree)
    for (const point of points) if (point !== tree && contains(tree, point)) parts.add(point)
  }
  return [...parts]
}
