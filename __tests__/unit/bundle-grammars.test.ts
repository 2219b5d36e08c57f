import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, constants } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { GRAMMARS, WASM_FILES, bundledName } from '../../src/edits/syntax/languages.js'
import { wasmBytes } from '../../src/edits/syntax/loader.js'
// @ts-expect-error plain JavaScript build script, no types
import { writeGrammars } from '../../scripts/grammars.mjs'

const root = mkdtempSync(join(tmpdir(), 'bundle-grammars-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const raw = (file: { pkg: string; path: string }): Buffer =>
  readFileSync(createRequire(import.meta.url).resolve(`${file.pkg}/${file.path}`))

type Written = { name: string; raw: number; packed: number }
const write = (into: string, previous: string): Written[] => {
  mkdirSync(into, { recursive: true })
  return writeGrammars(WASM_FILES, bundledName, into, previous) as Written[]
}

describe("the bundle's grammars (scripts/grammars.mjs)", () => {
  const first = join(root, 'first')
  const written = write(first, join(root, 'none'))

  it('ships the runtime and every grammar of languages.ts, compressed, and nothing else', () => {
    expect(WASM_FILES).toHaveLength(Object.keys(GRAMMARS).length + 1)
    expect(readdirSync(first).sort()).toEqual(WASM_FILES.map(bundledName).sort())
    const rawSize = written.reduce((sum, file) => sum + file.raw, 0)
    const packedSize = written.reduce((sum, file) => sum + file.packed, 0)
    expect(packedSize).toBeLessThan(rawSize / 10)
  })

  it('gives the loader the very bytes of each package file, decompressed in memory', async () => {
    for (const file of WASM_FILES) {
      const bytes = await wasmBytes(file, first)
      expect(Buffer.from(bytes!).equals(raw(file)), file.path).toBe(true)
      // Without a bundle folder (the dev tree) the package's own file is read.
      const dev = await wasmBytes(file, join(root, 'none'))
      expect(Buffer.from(dev!).equals(raw(file)), file.path).toBe(true)
    }
  })

  it('writes the same bytes twice, and keeps a file that unpacks to the same grammar', () => {
    const second = join(root, 'second')
    write(second, join(root, 'none'))
    for (const name of readdirSync(first))
      expect(readFileSync(join(second, name)).equals(readFileSync(join(first, name))), name).toBe(
        true
      )
    // Another brotli (another Node) may compress differently: what is there and right stays.
    const json = WASM_FILES.find((file) => file.path.endsWith('tree-sitter-json.wasm'))!
    const yaml = WASM_FILES.find((file) => file.path.endsWith('tree-sitter-yaml.wasm'))!
    const other = brotliCompressSync(raw(json), {
      params: { [constants.BROTLI_PARAM_QUALITY]: 2 }
    })
    expect(other.equals(readFileSync(join(first, bundledName(json))))).toBe(false)
    writeFileSync(join(second, bundledName(json)), other)
    writeFileSync(join(second, bundledName(yaml)), 'stale')
    const third = join(root, 'third')
    write(third, second)
    expect(readFileSync(join(third, bundledName(json))).equals(other)).toBe(true)
    expect(
      readFileSync(join(third, bundledName(yaml))).equals(
        readFileSync(join(first, bundledName(yaml)))
      )
    ).toBe(true)
  })

  it('has scripts/bundle.mjs keep no list of its own', () => {
    const script = readFileSync(new URL('../../scripts/bundle.mjs', import.meta.url), 'utf8')
    expect(script).not.toMatch(/\.wasm/)
    expect(script).toContain("'../src/edits/syntax/languages.ts'")
  })
})
