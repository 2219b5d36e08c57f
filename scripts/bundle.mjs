// Builds the committed bundles: dist/index.js (the action) and dist/cli/index.js (the CLI,
// started through the dist/cli.js shim), with the prompt templates copied beside them.
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const ncc = join(
  dirname(createRequire(import.meta.url).resolve('@vercel/ncc/package.json')),
  'dist/ncc/cli.js'
)
const build = (entry, out) =>
  execFileSync(process.execPath, [ncc, 'build', entry, '-o', out, '--quiet'], {
    cwd: root,
    stdio: 'inherit'
  })

rmSync(join(root, 'dist'), { recursive: true, force: true })
build('src/index.ts', 'dist')
build('src/cli.ts', 'dist/cli')
writeFileSync(join(root, 'dist/cli.js'), "#!/usr/bin/env node\nimport './cli/index.js'\n")
chmodSync(join(root, 'dist/cli.js'), 0o755)
mkdirSync(join(root, 'dist/prompts'), { recursive: true })
cpSync(join(root, 'prompts'), join(root, 'dist/prompts'), { recursive: true })
console.log('bundled dist/index.js, dist/cli/index.js, dist/cli.js and dist/prompts/')
