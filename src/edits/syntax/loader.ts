import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { brotliDecompress } from 'node:zlib'
import type * as TreeSitter from 'web-tree-sitter'
import type { Language, Parser } from 'web-tree-sitter'
import { GRAMMARS, RUNTIME_WASM, bundledName, type WasmFile } from './languages.js'

const here = dirname(fileURLToPath(import.meta.url))
const unbrotli = promisify(brotliDecompress)

/**
 * A WASM file's bytes. From the bundle, brotli-compressed in `grammars/` beside this module
 * (dist/grammars/, written by scripts/bundle.mjs) and decompressed in memory; else from its npm
 * package, resolved from this module (the sources run by vitest or tsx). Null when neither has it.
 */
export async function wasmBytes(
  file: WasmFile,
  bundleFolder: string = join(here, 'grammars')
): Promise<Uint8Array | null> {
  const bundled = join(bundleFolder, bundledName(file))
  if (existsSync(bundled)) return new Uint8Array(await unbrotli(await readFile(bundled)))
  const path = packagePath(file)
  return path === null ? null : new Uint8Array(await readFile(path))
}

function packagePath(file: WasmFile): string | null {
  try {
    // Built at run time, so the bundler does not try to follow it.
    const resolve = createRequire(import.meta.url).resolve
    const path = resolve([file.pkg, file.path].join('/'))
    return existsSync(path) ? path : null
  } catch {
    return null
  }
}

/**
 * web-tree-sitter itself. In the bundle, ncc serves `require` with the package's CommonJS build:
 * its ES module build imports node:module dynamically, which the bundle cannot serve (the
 * `createRequire` it needs comes out undefined). Unbundled (vitest, tsx) an ES module has no
 * `require`, and the ES build is imported.
 */
async function binding(): Promise<typeof TreeSitter> {
  return typeof require === 'function'
    ? // eslint-disable-next-line @typescript-eslint/no-require-imports
      (require('web-tree-sitter') as typeof TreeSitter)
    : await import('web-tree-sitter')
}

let runtime: Promise<typeof TreeSitter | null> | undefined
const languages = new Map<string, Promise<Language | null>>()
let parser: Parser | undefined

/** Starts web-tree-sitter once per process; null when its runtime cannot be found or loaded. */
function initRuntime(): Promise<typeof TreeSitter | null> {
  runtime ??= (async () => {
    try {
      const wasmBinary = await wasmBytes(RUNTIME_WASM)
      if (wasmBinary === null) return null
      const treeSitter = await binding()
      // The CommonJS build reads `__dirname` while it starts, which an ES module bundle lacks; its
      // value is not used, as the runtime's bytes are given.
      const global = globalThis as { __dirname?: string }
      const shim = typeof require === 'function' && global.__dirname === undefined
      if (shim) global.__dirname = here
      try {
        await treeSitter.Parser.init({ wasmBinary, locateFile: (name: string) => name })
      } finally {
        if (shim) delete global.__dirname
      }
      return treeSitter
    } catch {
      return null
    }
  })()
  return runtime
}

/** The language's grammar, loaded once on first use; null when it is unknown or will not load. */
export function loadLanguage(language: string): Promise<Language | null> {
  let loading = languages.get(language)
  if (loading === undefined) {
    loading = (async () => {
      const file = Object.hasOwn(GRAMMARS, language) ? GRAMMARS[language] : undefined
      if (file === undefined) return null
      try {
        const bytes = await wasmBytes(file)
        const treeSitter = bytes === null ? null : await initRuntime()
        if (bytes === null || treeSitter === null) return null
        return await treeSitter.Language.load(bytes)
      } catch {
        return null
      }
    })()
    languages.set(language, loading)
  }
  return loading
}

/** The one parser, set to the given language (parsing is synchronous, so one is enough). */
export async function parserFor(language: Language): Promise<Parser> {
  const treeSitter = await initRuntime()
  if (treeSitter === null) throw new Error('web-tree-sitter is not loaded')
  parser ??= new treeSitter.Parser()
  parser.setLanguage(language)
  return parser
}
