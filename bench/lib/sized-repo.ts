/** The typo example's repository grown to a given size, for the benches that measure size. */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { typoRepo } from '../../__tests__/e2e/scenario.js'
import type { TestRepo } from '../../__tests__/support/repo.js'

/**
 * The typo example's repository with generated files beside it up to `files` in all, built
 * with one `git fast-import` and one checkout, and pushed to its bare origin. `ignored`: that
 * many more files in node_modules, as an `npm ci` would leave them; `ignore`: the lines of a
 * `.gitignore` committed with the generated files (name node_modules/ there with `ignored`).
 */
export function sizedRepo(files: number, ignored = 0, ignore: readonly string[] = []): TestRepo {
  const repo = typoRepo()
  const head = repo.git('rev-parse', 'HEAD')
  const extra = files - repo.git('ls-files').split('\n').length - (ignore.length > 0 ? 1 : 0)
  // A hundred distinct contents, each stored once and named by a mark: the paths are what counts.
  const chunks: string[] = []
  for (let mark = 1; mark <= 100; mark++) {
    const body = `generated file ${mark}\n${'x'.repeat(mark)}\n`
    chunks.push('blob', `mark :${mark}`, `data ${Buffer.byteLength(body)}`, body)
  }
  chunks.push(
    'commit refs/heads/main',
    'committer Bench <bench@example.invalid> 0 +0000',
    'data 15',
    'generated files',
    `from ${head}`
  )
  const gitignore = ignore.map((line) => `${line}\n`).join('')
  if (gitignore)
    chunks.push('M 100644 inline .gitignore', `data ${Buffer.byteLength(gitignore)}`, gitignore)
  for (let i = 0; i < extra; i++) {
    const path = `gen/d${String(Math.floor(i / 500)).padStart(4, '0')}/f${String(i).padStart(6, '0')}.txt`
    chunks.push(`M 100644 :${(i % 100) + 1} ${path}`)
  }
  execFileSync('git', ['fast-import', '--quiet'], {
    cwd: repo.dir,
    input: `${chunks.join('\n')}\n`,
    maxBuffer: 1 << 30
  })
  repo.git('reset', '--quiet', '--hard', 'main')
  repo.git('push', '--quiet', 'origin', 'main')
  for (let i = 0; i < ignored; i++) {
    const folder = join(
      repo.dir,
      'node_modules',
      `pkg${String(Math.floor(i / 100)).padStart(4, '0')}`
    )
    if (i % 100 === 0) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `f${i}.js`), `module.exports = ${i}\n`)
  }
  return repo
}
