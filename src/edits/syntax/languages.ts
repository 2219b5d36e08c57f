import { basename, extname } from 'node:path'

/** A prebuilt tree-sitter WASM file: the npm package that ships it and its path in there. */
export interface WasmFile {
  readonly pkg: string
  readonly path: string
}

/**
 * The file's name in the bundle's `grammars/` folder: brotli-compressed, as the grammars are
 * 20 MB raw and 1.3 MB compressed; decompressing one when it is first needed takes milliseconds.
 */
export function bundledName(file: WasmFile): string {
  return `${basename(file.path)}.br`
}

/** web-tree-sitter's own runtime, which `Parser.init` loads. */
export const RUNTIME_WASM: WasmFile = { pkg: 'web-tree-sitter', path: 'web-tree-sitter.wasm' }

const vscode = (name: string): WasmFile => ({
  pkg: '@vscode/tree-sitter-wasm',
  path: `wasm/tree-sitter-${name}.wasm`
})

/**
 * The grammar of each language, by the name `languageOf` returns. Every file here must load with
 * the web-tree-sitter version in package.json (ABI 13 to 15); scripts/bundle.mjs ships
 * `WASM_FILES` into dist/grammars/, reading this list from here.
 */
export const GRAMMARS: Readonly<Record<string, WasmFile>> = {
  javascript: vscode('javascript'),
  typescript: vscode('typescript'),
  tsx: vscode('tsx'),
  python: vscode('python'),
  go: vscode('go'),
  java: vscode('java'),
  c: { pkg: 'tree-sitter-c', path: 'tree-sitter-c.wasm' },
  cpp: vscode('cpp'),
  csharp: vscode('c-sharp'),
  ruby: vscode('ruby'),
  rust: vscode('rust'),
  php: vscode('php'),
  json: { pkg: 'tree-sitter-json', path: 'tree-sitter-json.wasm' },
  yaml: { pkg: '@tree-sitter-grammars/tree-sitter-yaml', path: 'tree-sitter-yaml.wasm' }
}

/** Every WASM file the syntax gate loads, the runtime first: what the bundle ships. */
export const WASM_FILES: readonly WasmFile[] = [RUNTIME_WASM, ...Object.values(GRAMMARS)]

const EXTENSIONS: Readonly<Record<string, string>> = {
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.java': 'java',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.c++': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.hxx': 'cpp',
  '.cs': 'csharp',
  '.rb': 'ruby',
  '.rs': 'rust',
  '.php': 'php',
  '.json': 'json',
  '.yml': 'yaml',
  '.yaml': 'yaml'
}

// JSON with comments and trailing commas (tsconfig, jsconfig, editor settings): not JSON's grammar.
const JSONC =
  /(^|\/)((ts|js)config[^/]*\.json|\.vscode\/[^/]+\.json|\.devcontainer(\/[^/]+)?\.json)$/i

/** The language of a path by its extension (case-insensitive), or null. */
export function languageOfPath(path: string): string | null {
  if (JSONC.test(path)) return null
  const ext = extname(path).toLowerCase()
  return Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext] : null
}
