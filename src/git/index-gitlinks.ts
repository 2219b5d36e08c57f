import { lstatSync } from 'node:fs'
import { readRegularFile } from './regular-file.js'

const GITLINK = 0o160000
const TYPE_MASK = 0o170000
const EXTENDED = 0x4000
const NAME_MASK = 0x0fff

/**
 * The gitlink (submodule) paths of a git index file, read without a git process (index
 * versions 2 to 4; SHA-1 or SHA-256 by `hashBytes`). A gitlink's folder can hold a repository
 * with config of its own, so the integrity snapshot watches both the list and each folder's
 * `.git`. Undefined when the file is absent; `['<unreadable index>']` when it does not parse,
 * which differs from any list a readable index gives.
 */
export function indexGitlinks(file: string, hashBytes = 20): string[] | undefined {
  // An index of 100 000 entries takes milliseconds to read and parse, and each integrity
  // snapshot and check reads it: an index whose stamp is unchanged is the same file (git renames
  // a new index in; any other write moves its ctime, which cannot be set back).
  const stats = lstatSync(file, { bigint: true, throwIfNoEntry: false })
  if (!stats) return undefined
  const key = `${file}|${hashBytes}|${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
  if (last?.key === key) return [...last.links]
  const data = readRegularFile(file)
  if (!Buffer.isBuffer(data)) return undefined
  let links: string[]
  try {
    links = parse(data, hashBytes)
  } catch {
    links = ['<unreadable index>']
  }
  last = { key, links }
  return [...links]
}

let last: { key: string; links: string[] } | undefined

// Called at every integrity snapshot on indexes of 100 000 entries and more: nothing is allocated
// per entry, and a path is decoded only for a gitlink.
function parse(data: Buffer, hashBytes: number): string[] {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not an index')
  const version = data.readUInt32BE(4)
  if (version < 2 || version > 4) throw new Error(`index version ${version}`)
  const count = data.readUInt32BE(8)
  const links: string[] = []
  // Version 4: the previous entry's path, which the next one keeps a prefix of.
  let previous = Buffer.allocUnsafe(256)
  let previousLength = 0
  let offset = 12
  for (let i = 0; i < count; i++) {
    const start = offset
    if (start + 42 + hashBytes > data.length) throw new Error('truncated')
    const mode = data.readUInt32BE(start + 24)
    const flags = data.readUInt16BE(start + 40 + hashBytes)
    offset = start + 42 + hashBytes
    if (version >= 3 && flags & EXTENDED) offset += 2
    const named = flags & NAME_MASK
    if (version === 4) {
      // The length of the previous path to drop (a varint), then the rest of this one.
      let strip = 0
      let byte: number
      let first = true
      do {
        if (offset >= data.length) throw new Error('truncated')
        byte = data[offset++]!
        strip = first ? byte & 0x7f : ((strip + 1) << 7) | (byte & 0x7f)
        first = false
      } while (byte & 0x80)
      if (strip < 0 || strip > previousLength) throw new Error('bad prefix')
      const keep = previousLength - strip
      const end = nameEnd(data, offset, named < NAME_MASK ? named - keep : -1)
      const length = keep + end - offset
      if (length > previous.length) {
        const grown = Buffer.allocUnsafe(Math.max(length, previous.length * 2))
        previous.copy(grown, 0, 0, keep)
        previous = grown
      }
      for (let from = offset, to = keep; from < end;) previous[to++] = data[from++]!
      previousLength = length
      offset = end + 1
      if ((mode & TYPE_MASK) === GITLINK) links.push(previous.toString('utf8', 0, length))
    } else {
      const end = nameEnd(data, offset, named)
      if ((mode & TYPE_MASK) === GITLINK) links.push(data.toString('utf8', offset, end))
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      offset = start + Math.ceil((end - start + 1) / 8) * 8
    }
    if (offset > data.length) throw new Error('truncated')
  }
  return links.sort()
}

/**
 * Where the NUL after the path at `offset` is. The flags give the length below 4095 bytes, which
 * git itself reads by, so no byte of the path is scanned; else (or when no NUL is there) the first NUL.
 */
function nameEnd(data: Buffer, offset: number, expected: number): number {
  const guess = offset + expected
  if (expected >= 0 && expected < NAME_MASK && guess < data.length && data[guess] === 0)
    return guess
  const end = data.indexOf(0, offset)
  if (end < 0) throw new Error('truncated')
  return end
}
