// dist/inputs.sha256: what the committed bundle was built from, and what it holds. `npm test`
// rebuilds dist/ only when either differs (the build takes about 16 s and 23 CPU-seconds on a
// 2-core machine, most of a clean clone's test run spent before the first test), and check-dist
// still rebuilds from scratch, so a stamp that lies fails CI.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const STAMP = 'inputs.sha256'

/** What the build reads: the sources, the prompts, the build scripts and the locked packages. */
const INPUTS = [
  'src',
  'prompts',
  'scripts/bundle.mjs',
  'scripts/bundle-stamp.mjs',
  'scripts/grammars.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json'
]

/** One digest of the files under `paths` of `root` (names and bytes, in name order). */
function digest(root, paths, skip = () => false) {
  const files = []
  for (const path of paths) {
    const full = join(root, path)
    if (!existsSync(full)) continue
    if (!readdirSafe(full)) files.push(path)
    else
      for (const entry of readdirSync(full, { recursive: true, withFileTypes: true }))
        if (entry.isFile())
          files.push(join(entry.parentPath ?? entry.path, entry.name).slice(root.length + 1))
  }
  const hash = createHash('sha256')
  for (const file of files.filter((file) => !skip(file)).sort()) {
    const bytes = readFileSync(join(root, file))
    hash.update(`${file}\0${bytes.length}\0`).update(bytes)
  }
  return hash.digest('hex')
}

function readdirSafe(path) {
  try {
    readdirSync(path)
    return true
  } catch {
    return false
  }
}

/** The stamp's text for a build of `root`'s inputs into `dist`. */
export function stampText(root, dist) {
  return (
    `${digest(root, INPUTS)}  ${INPUTS.join(', ')}\n` +
    `${digest(dist, ['.'], (file) => file === STAMP)}  dist/ (every file but this one)\n`
  )
}

/** True when `root`'s dist/ was built from the inputs as they are and is unchanged since. */
export function distCurrent(root) {
  const dist = join(root, 'dist')
  const stamp = join(dist, STAMP)
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === stampText(root, dist)
}
