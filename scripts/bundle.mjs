// Builds the committed bundles: dist/index.js (the action) and dist/cli/index.js (the CLI,
// started through the dist/cli.js shim), with the prompt templates copied beside them.
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
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const ncc = join(
  dirname(createRequire(import.meta.url).resolve('@vercel/ncc/package.json')),
  'dist/ncc/cli.js'
)
const staging = join(root, 'node_modules/.cache/patchsmith-dist', String(process.pid))
const build = (entry, out) =>
  execFileSync(
    process.execPath,
    [ncc, 'build', entry, '-o', join(staging, out), '--quiet', '--transpile-only', '--minify'],
    {
      cwd: root,
      stdio: 'inherit'
    }
  )

rmSync(staging, { recursive: true, force: true })
build('src/index.ts', '.')
build('src/cli.ts', 'cli')
writeFileSync(join(staging, 'cli.js'), "#!/usr/bin/env node\nimport './cli/index.js'\n")
chmodSync(join(staging, 'cli.js'), 0o755)
mkdirSync(join(staging, 'prompts'), { recursive: true })
cpSync(join(root, 'prompts'), join(staging, 'prompts'), { recursive: true })
// An unchanged build leaves dist/ alone: a test run beside this one keeps reading its files.
if (sameTree(staging, join(root, 'dist'))) {
  rmSync(staging, { recursive: true, force: true })
  // Built from the sources as they are now: tests that compare times see it as current.
  const now = new Date()
  for (const file of ['index.js', 'cli/index.js', 'cli.js'])
    utimesSync(join(root, 'dist', file), now, now)
  console.log('dist/ is current: dist/index.js, dist/cli/index.js, dist/cli.js and dist/prompts/')
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
console.log('bundled dist/index.js, dist/cli/index.js, dist/cli.js and dist/prompts/')

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
