// Builds the committed bundles: dist/index.js (the action) and dist/cli/index.js (the CLI,
// started through the dist/cli.js shim), with the prompt templates copied beside them.
// The build goes to a temporary folder first, so dist/ is never seen half-written.
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
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
