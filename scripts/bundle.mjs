// Builds the committed bundle: one readable (not minified) ncc build of src/entries.ts as
// dist/patchsmith.js and its chunks, and two small entries that import it: dist/index.js (the
// action) and dist/cli.js (the CLI). The prompt templates are copied beside them, and so are the
// WASM files of the syntax gate (src/edits/syntax/): web-tree-sitter's runtime and one grammar per
// language it knows, in dist/grammars/.
// The build goes to a temporary folder first, so dist/ is never seen half-written.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync
} from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const ncc = join(
  dirname(createRequire(import.meta.url).resolve('@vercel/ncc/package.json')),
  'dist/ncc/cli.js'
)
const staging = join(root, 'node_modules/.cache/patchsmith-dist', String(process.pid))
// The syntax gate's WASM files, as `package/path`: the same list as src/edits/syntax/languages.ts
// (its unit test checks the two agree). Copied by file name into dist/grammars/.
const GRAMMAR_WASMS = [
  'web-tree-sitter/web-tree-sitter.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm',
  'tree-sitter-c/tree-sitter-c.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-cpp.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-c-sharp.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-ruby.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-rust.wasm',
  '@vscode/tree-sitter-wasm/wasm/tree-sitter-php.wasm',
  'tree-sitter-json/tree-sitter-json.wasm',
  '@tree-sitter-grammars/tree-sitter-yaml/tree-sitter-yaml.wasm'
]

rmSync(staging, { recursive: true, force: true })
execFileSync(
  process.execPath,
  [ncc, 'build', 'src/entries.ts', '-o', staging, '--quiet', '--transpile-only'],
  { cwd: root, stdio: 'inherit' }
)
// ncc names its entry index.js; the chunks are loaded by their own names, relative to it.
renameSync(join(staging, 'index.js'), join(staging, 'patchsmith.js'))
writeFileSync(
  join(staging, 'index.js'),
  "// The action's entry (action.yml runs.main); the code is in patchsmith.js.\n" +
    "import { run } from './patchsmith.js'\n\nawait run()\n"
)
writeFileSync(
  join(staging, 'cli.js'),
  '#!/usr/bin/env node\n' +
    "// The patchsmith command's entry; the code is in patchsmith.js. On Node 22.1 and later the\n" +
    "// compiled bundle is cached between runs (Node's compile cache; most of a cold start is\n" +
    '// compiling the 4 MB bundle), so it is loaded after the cache is on.\n' +
    "import module from 'node:module'\n\n" +
    'module.enableCompileCache?.()\n' +
    "const { cli } = await import('./patchsmith.js')\n" +
    'process.exitCode = await cli(process.argv.slice(2))\n'
)
chmodSync(join(staging, 'cli.js'), 0o755)
mkdirSync(join(staging, 'prompts'), { recursive: true })
cpSync(join(root, 'prompts'), join(staging, 'prompts'), { recursive: true })
mkdirSync(join(staging, 'grammars'), { recursive: true })
const requireHere = createRequire(import.meta.url)
for (const file of GRAMMAR_WASMS)
  cpSync(requireHere.resolve(file), join(staging, 'grammars', basename(file)))
// An unchanged build leaves dist/ alone: a test run beside this one keeps reading its files.
if (sameTree(staging, join(root, 'dist'))) {
  rmSync(staging, { recursive: true, force: true })
  // Built from the sources as they are now: tests that compare times see it as current.
  const now = new Date()
  for (const file of ['index.js', 'patchsmith.js', 'cli.js'])
    utimesSync(join(root, 'dist', file), now, now)
  console.log(
    'dist/ is current: dist/index.js, dist/cli.js, dist/patchsmith.js, dist/prompts/ and dist/grammars/'
  )
  process.exit(0)
}
const old = `${staging}.old`
rmSync(old, { recursive: true, force: true })
try {
  renameSync(join(root, 'dist'), old)
} catch {
  // no dist/ yet
}
renameSync(staging, join(root, 'dist'))
rmSync(old, { recursive: true, force: true })
console.log(
  'bundled dist/index.js, dist/cli.js, dist/patchsmith.js, dist/prompts/ and dist/grammars/'
)

function sameTree(a, b) {
  if (!existsSync(b)) return false
  const list = (dir) =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(dir.length))
      .sort()
  const files = list(a)
  const other = list(b)
  if (files.join('\n') !== other.join('\n')) return false
  return files.every((file) => readFileSync(join(a, file)).equals(readFileSync(join(b, file))))
}
