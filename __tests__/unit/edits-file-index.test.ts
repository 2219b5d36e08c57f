import { describe, expect, it } from 'vitest'
import { indexLines, nonBlankLines, occurrencesInFile } from '../../src/edits/file-index.js'

/** Every start where the keys occur one after another: the scan the index replaces. */
function scanned(wanted: readonly string[], keys: readonly string[]): number[] {
  const found: number[] = []
  for (let at = 0; at + wanted.length <= keys.length; at++) {
    if (wanted.every((key, k) => keys[at + k] === key)) found.push(at)
  }
  return found
}

/** A small deterministic generator, so a failure names the same case every run. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
}

describe('file index', () => {
  it('finds what a scan of every start finds, in order, for repeated, missing and empty keys', () => {
    const next = random(7)
    const words = ['', '}', 'return 0', 'x = 1', 'y = 2']
    for (let trial = 0; trial < 300; trial++) {
      const lines = Array.from({ length: Math.floor(next() * 40) }, () =>
        ' '.repeat(Math.floor(next() * 3)).concat(words[Math.floor(next() * words.length)]!)
      )
      const file = indexLines(lines)
      const wanted = Array.from(
        { length: Math.floor(next() * 4) },
        () => [...words, 'absent'][Math.floor(next() * (words.length + 1))]!
      )
      expect(occurrencesInFile(wanted, file)).toEqual(scanned(wanted, file.loose))
    }
  })

  it('keys lines loosely and lists the non-blank ones with their places', () => {
    const file = indexLines(['a  =  1', '', '  ', '\tb = 2', 'a = 1'])
    expect(file.loose).toEqual(['a = 1', '', '', 'b = 2', 'a = 1'])
    expect(file.byLoose.get('a = 1')).toEqual([0, 4])
    const nonBlank = nonBlankLines(file)
    expect(nonBlank.at).toEqual([0, 3, 4])
    expect(nonBlank.loose).toEqual(['a = 1', 'b = 2', 'a = 1'])
    expect(nonBlankLines(file)).toBe(nonBlank)
  })
})
