// The syntax gate's WASM files (web-tree-sitter's runtime and one grammar per language), written
// brotli-compressed for the bundle's grammars/ folder: 20 MB raw, 1.3 MB compressed.
// Deterministic for check-dist on a fresh clone: fixed parameters, and a compressed file that is
// already there and decompresses to the very same bytes is kept as it is, so another brotli
// version (another Node) that would compress differently never changes dist/. It also makes an
// unchanged build fast: compressing all of them takes seconds, decompressing milliseconds.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'

const BROTLI = {
  params: {
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_GENERIC,
    [constants.BROTLI_PARAM_QUALITY]: 9,
    [constants.BROTLI_PARAM_LGWIN]: 24
  }
}

/**
 * Writes each file (`{ pkg, path }`, resolved from this project's node_modules) as
 * `nameOf(file)` into `into`, reusing the same name in `previous` when it holds the same bytes.
 * Returns the raw and the written size of each.
 */
export function writeGrammars(files, nameOf, into, previous) {
  const resolve = createRequire(import.meta.url).resolve
  return files.map((file) => {
    const name = nameOf(file)
    const raw = readFileSync(resolve(`${file.pkg}/${file.path}`))
    const old = join(previous, name)
    let packed = existsSync(old) ? readFileSync(old) : null
    if (packed === null || !unpacks(packed, raw)) packed = brotliCompressSync(raw, BROTLI)
    writeFileSync(join(into, name), packed)
    return { name, raw: raw.length, packed: packed.length }
  })
}

function unpacks(packed, raw) {
  try {
    return brotliDecompressSync(packed).equals(raw)
  } catch {
    return false
  }
}
