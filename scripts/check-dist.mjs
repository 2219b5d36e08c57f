// Rebuilds dist/ and fails when it differs from what is committed, then checks that the
// bundle starts (an ESM/CJS mix-up builds fine and only fails when run), is not minified and
// has one set of chunks.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' })

execFileSync(process.execPath, [join(root, 'scripts/bundle.mjs')], { cwd: root, stdio: 'inherit' })
const changed = git('status', '--porcelain', '--untracked-files=all', '--', 'dist')
const diff = git('diff', '--ignore-space-at-eol', '--stat', '--', 'dist')
if (changed.trim() !== '') {
  console.error('dist/ is not current: run `npm run bundle` and commit dist/.\n' + changed + diff)
  process.exit(1)
}
// Reviewable: one set of chunks for both entries, and code that is not minified.
if (existsSync(join(root, 'dist/cli'))) {
  console.error('dist/cli/ exists: both entries must share the chunks of dist/patchsmith.js.')
  process.exit(1)
}
for (const file of readdirSync(join(root, 'dist')).filter((name) => name.endsWith('.js'))) {
  const lines = readFileSync(join(root, 'dist', file), 'utf8').split('\n')
  const long = lines.filter((line) => line.length > 1000).length
  if (long > lines.length / 100 + 5) {
    console.error(
      `dist/${file} looks minified: ${long} of ${lines.length} lines pass 1000 characters.`
    )
    process.exit(1)
  }
}
const smoke = spawnSync(process.execPath, [join(root, 'dist/index.js')], {
  env: { PATH: process.env.PATH, HOME: process.env.HOME },
  encoding: 'utf8',
  timeout: 60_000
})
if (smoke.status !== 1 || !/::error::/.test(smoke.stdout)) {
  console.error(
    'node dist/index.js did not fail cleanly without inputs:\n' + smoke.stdout + smoke.stderr
  )
  process.exit(1)
}
const cli = spawnSync(process.execPath, [join(root, 'dist/cli.js'), '--help'], { encoding: 'utf8' })
if (cli.status !== 0 || !/Usage: patchsmith run/.test(cli.stdout)) {
  console.error('node dist/cli.js --help failed:\n' + cli.stdout + cli.stderr)
  process.exit(1)
}
console.log('dist/ is current and both bundles start')
