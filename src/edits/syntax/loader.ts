import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as TreeSitter from 'web-tree-sitter'
import type { Language, Parser } from 'web-tree-sitter'
import { GRAMMARS, RUNTIME_WASM, bundledName, type WasmFile } from './languages.js'

const here = dirname(fileURLToPath(import.meta.url))

/**
 * Where a WASM file is: in `grammars/` beside this module when it runs from the bundle
 * (dist/grammars/, copied there by scripts/bundle.mjs), else in its npm package, resolved from
 * this module (the sources run by vitest or tsx). Null when neither has it.
 */
export function wasmPath(file: WasmFile): string | null {
  const bundled = join(here, 'grammars', bundledName(file))
  if (existsSync(bundled)) return bundled
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
    const path = wasmPath(RUNTIME_WASM)
    if (path === null) return null
    try {
      const treeSitter = await binding()
      // The CommonJS build reads `__dirname` while it starts, which an ES module bundle lacks; its
      // value is not used, as `locateFile` says where the runtime is.
      const global = globalThis as { __dirname?: string }
      const shim = typeof require === 'function' && global.__dirname === undefined
      if (shim) global.__dirname = here
      try {
        await treeSitter.Parser.init({ locateFile: () => path })
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
      const path = file && wasmPath(file)
      const treeSitter = path ? await initRuntime() : null
      if (!path || treeSitter === null) return null
      try {
        return await treeSitter.Language.load(path)
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
