import { createHash } from 'node:crypto'

/**
 * `git patch-id --stable` of one patch, computed here instead of in a second git process: a
 * SHA-1 per file of the diff's lines with all whitespace removed (hunk headers and `index`
 * lines left out), the per-file digests added up as 160-bit numbers. It follows git's
 * builtin/patch-id.c line for line; tests compare it with git on real histories.
 */
export function patchId(patch: string | Buffer): string {
  const bytes = typeof patch === 'string' ? Buffer.from(patch) : patch
  const sum = new Uint8Array(20)
  let hash = createHash('sha1')
  let length = 0
  let before = -1
  let after = -1
  let binary = false
  let oids = ['', '']
  const flush = () => {
    const digest = hash.digest()
    hash = createHash('sha1')
    let carry = 0
    for (let i = 0; i < 20; i++) {
      carry += sum[i]! + digest[i]!
      sum[i] = carry & 0xff
      carry >>= 8
    }
  }
  for (const line of lines(bytes)) {
    const starts = (prefix: string) => line.toString('latin1', 0, prefix.length) === prefix
    if (length === 0 && !starts('diff ')) continue
    if (before === -1) {
      if (starts('GIT binary patch') || starts('Binary files')) {
        binary = true
        before = 0
        hash.update(oids[0]!)
        hash.update(oids[1]!)
        flush()
        continue
      } else if (starts('index ')) {
        const match = /^index ([^.\s]*)\.\.(\S*)/.exec(line.toString('latin1'))
        if (match) oids = [match[1]!, match[2]!]
        continue
      } else if (starts('--- ')) {
        before = after = 1
      } else if (!isAlpha(line[0])) {
        break
      }
    }
    if (starts('\\ ') && line.length > 12) continue
    if (binary) {
      if (starts('diff ')) {
        binary = false
        before = -1
      }
      continue
    }
    if (before === 0 && after === 0) {
      if (starts('@@ -')) {
        ;[before, after] = hunkCounts(line.toString('latin1'))
        continue
      }
      if (!starts('diff ')) break
      flush()
      before = after = -1
    }
    if (line[0] === 0x2d || line[0] === 0x20) before--
    if (line[0] === 0x2b || line[0] === 0x20) after--
    const kept = line.filter((byte) => !isSpace(byte))
    length += kept.length
    hash.update(kept)
  }
  flush()
  return length > 0 ? Buffer.from(sum).toString('hex') : ''
}

function* lines(bytes: Buffer): Generator<Buffer> {
  let start = 0
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start)
    const end = newline < 0 ? bytes.length : newline + 1
    yield bytes.subarray(start, end)
    start = end
  }
}

/** Line counts of a hunk header; a count left out is 1. Unparsable headers keep git's zeros. */
function hunkCounts(header: string): [number, number] {
  const match = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))?/.exec(header)
  if (!match) return [0, 0]
  return [
    match[1] === undefined ? 1 : Number(match[1]),
    match[2] === undefined ? 1 : Number(match[2])
  ]
}

const isAlpha = (byte: number | undefined) =>
  byte !== undefined && ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a))
// C's isspace: space, \t, \n, \v, \f, \r.
const isSpace = (byte: number) => byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)
