// Builds the committed bundle: one readable (not minified) ncc build of src/entries.ts as
// dist/patchsmith.js and its chunks, and two small entries that import it: dist/index.js (the
// action) and dist/cli.js (the CLI). The prompt templates are copied beside them (prompts/ and
// each edit format's draft prompt, listed by the format registry in src/edits/formats/), and so
// are the WASM files of the syntax gate, brotli-compressed in dist/grammars/: web-tree-sitter's runtime
// and one grammar per language, as listed in src/edits/syntax/languages.ts (read from there).
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
  statSync,
  utimesSync,
  writeFileSync
} from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tsImport } from 'tsx/esm/api'
import { writeGrammars } from './grammars.mjs'
import { distCurrent, STAMP, stampText } from './bundle-stamp.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// `--if-changed` (npm test): nothing built when dist/ is what these sources build (its stamp).
if (process.argv.includes('--if-changed') && distCurrent(root)) {
  touchEntries()
  console.log(`dist/ is current for these sources (dist/${STAMP}): not built again`)
  process.exit(0)
}
const ncc = join(
  dirname(createRequire(import.meta.url).resolve('@vercel/ncc/package.json')),
  'dist/ncc/cli.js'
)
const staging = join(root, 'node_modules/.cache/patchsmith-dist', String(process.pid))
// The grammar list and the names the loader looks for, from the sources themselves.
const { WASM_FILES, bundledName } = await tsImport(
  '../src/edits/syntax/languages.ts',
  import.meta.url
)
// Each edit format keeps its draft prompt in its own folder; the registry lists them.
const { FORMAT_TEMPLATES } = await tsImport('../src/edits/formats/index.ts', import.meta.url)

rmSync(staging, { recursive: true, force: true })
execFileSync(
  process.execPath,
  [ncc, 'build', 'src/entries.ts', '-o', staging, '--quiet', '--transpile-only'],
  { cwd: root, stdio: 'inherit' }
)
// ncc names its entry index.js; the chunks are loaded by their own names, relative to it.
renameSync(join(staging, 'index.js'), join(staging, 'patchsmith.js'))
// Both entries load the bundle once V8 compiles WebAssembly with its baseline compiler only:
// undici's HTTP parser and the syntax gate's grammars are WebAssembly, and V8 otherwise also
// compiles them again with TurboFan on background threads, for code a run uses a few
// milliseconds: about 0.45 s of CPU and 30 MB of memory a run (measured through dist/index.js).
// Node leaves V8's flags writable after start for this; the bundle is imported only after the
// flag is set, so no compile can come first.
const BASELINE_WASM =
  "import { setFlagsFromString } from 'node:v8'\n\n" + "setFlagsFromString('--liftoff-only')\n"
writeFileSync(
  join(staging, 'index.js'),
  "// The action's entry (action.yml runs.main); the code is in patchsmith.js, loaded after V8 is\n" +
    '// set to compile WebAssembly with its baseline compiler only (scripts/bundle.mjs says why).\n' +
    BASELINE_WASM +
    "const { run } = await import('./patchsmith.js')\n" +
    'await run()\n'
)
writeFileSync(
  join(staging, 'cli.js'),
  '#!/usr/bin/env node\n' +
    "// The patchsmith command's entry; the code is in patchsmith.js. On Node 22.1 and later the\n" +
    "// compiled bundle is cached between runs (Node's compile cache; most of a cold start is\n" +
    '// compiling the 4 MB bundle), so it is loaded after the cache is on, and after V8 is set to\n' +
    '// compile WebAssembly with its baseline compiler only (scripts/bundle.mjs says why).\n' +
    "import module from 'node:module'\n" +
    BASELINE_WASM +
    'module.enableCompileCache?.()\n' +
    "const { cli } = await import('./patchsmith.js')\n" +
    'process.exitCode = await cli(process.argv.slice(2))\n'
)
chmodSync(join(staging, 'cli.js'), 0o755)
mkdirSync(join(staging, 'prompts'), { recursive: true })
cpSync(join(root, 'prompts'), join(staging, 'prompts'), { recursive: true })
for (const { name, dir } of FORMAT_TEMPLATES)
  cpSync(join(dir, `${name}.md`), join(staging, 'prompts', `${name}.md`))
mkdirSync(join(staging, 'grammars'), { recursive: true })
const grammars = writeGrammars(
  WASM_FILES,
  bundledName,
  join(staging, 'grammars'),
  join(root, 'dist/grammars')
)
writeFileSync(join(staging, STAMP), stampText(root, staging))
// An unchanged build leaves dist/ alone: a test run beside this one keeps reading its files.
if (sameTree(staging, join(root, 'dist'))) {
  rmSync(staging, { recursive: true, force: true })
  touchEntries()
  console.log(
    'dist/ is current: dist/index.js, dist/cli.js, dist/patchsmith.js, dist/prompts/ and dist/grammars/'
  )
  printSize()
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
printSize()

/** Built from the sources as they are now: tests that compare times see dist/ as current. */
function touchEntries() {
  const now = new Date()
  for (const file of ['index.js', 'patchsmith.js', 'cli.js'])
    utimesSync(join(root, 'dist', file), now, now)
}

/** dist/'s size by part, beside the anchors of issue 25 (other actions' committed dist/). */
function printSize() {
  const dist = join(root, 'dist')
  const parts = new Map()
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath ?? entry.path, entry.name)
    const part = path.slice(dist.length + 1).split('/')[0]
    parts.set(part, (parts.get(part) ?? 0) + statSync(path).size)
  }
  const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`
  const total = [...parts.values()].reduce((a, b) => a + b, 0)
  const raw = grammars.reduce((sum, file) => sum + file.raw, 0)
  console.log(
    `dist/ ${mb(total)} (anchors: create-pull-request 1.9 MB, checkout 1.5 MB; ` +
      `${(total / 1.9e6).toFixed(1)}x the first)\n` +
      [...parts]
        .sort((a, b) => b[1] - a[1])
        .filter(([, size]) => size >= 100e3)
        .map(([part, size]) => `  ${part.padEnd(16)} ${mb(size)}`)
        .join('\n') +
      `\n  (grammars/ raw: ${mb(raw)})`
  )
}

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
