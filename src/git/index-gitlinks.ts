import { readFileSync } from 'node:fs'

const GITLINK = 0o160000
const TYPE_MASK = 0o170000
const EXTENDED = 0x4000

/**
 * The gitlink (submodule) paths of a git index file, read without a git process (index
 * versions 2 to 4; SHA-1 or SHA-256 by `hashBytes`). A gitlink's folder can hold a repository
 * with config of its own, so the integrity snapshot watches both the list and each folder's
 * `.git`. Undefined when the file is absent; `['<unreadable index>']` when it does not parse,
 * which differs from any list a readable index gives.
 */
export function indexGitlinks(file: string, hashBytes = 20): string[] | undefined {
  let data: Buffer
  try {
    data = readFileSync(file)
  } catch {
    return undefined
  }
  try {
    return parse(data, hashBytes)
  } catch {
    return ['<unreadable index>']
  }
}

function parse(data: Buffer, hashBytes: number): string[] {
  if (data.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not an index')
  const version = data.readUInt32BE(4)
  if (version < 2 || version > 4) throw new Error(`index version ${version}`)
  const count = data.readUInt32BE(8)
  const links: string[] = []
  let offset = 12
  let previous: Buffer = Buffer.alloc(0)
  for (let i = 0; i < count; i++) {
    const start = offset
    const mode = data.readUInt32BE(offset + 24)
    offset += 40 + hashBytes
    const flags = data.readUInt16BE(offset)
    offset += 2
    if (version >= 3 && flags & EXTENDED) offset += 2
    let path: Buffer
    if (version === 4) {
      // The length of the previous path to drop (a varint), then the rest of this one.
      let strip = 0
      let byte: number
      let first = true
      do {
        byte = data[offset++]!
        strip = first ? byte & 0x7f : ((strip + 1) << 7) | (byte & 0x7f)
        first = false
      } while (byte & 0x80)
      const end = data.indexOf(0, offset)
      if (end < 0) throw new Error('truncated')
      if (strip > previous.length) throw new Error('bad prefix')
      path = Buffer.concat([
        previous.subarray(0, previous.length - strip),
        data.subarray(offset, end)
      ])
      offset = end + 1
    } else {
      const end = data.indexOf(0, offset)
      if (end < 0) throw new Error('truncated')
      path = data.subarray(offset, end)
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      offset = start + Math.ceil((end - start + 1) / 8) * 8
    }
    if (offset > data.length) throw new Error('truncated')
    previous = path
    if ((mode & TYPE_MASK) === GITLINK) links.push(path.toString('utf8'))
  }
  return links.sort()
}
