/**
 * bench:search — the plan-less load phase (list the files, find and rank the candidates) on a
 * generated 100 000-file repository, against `git grep` over the same terms in the same run
 * (issue 28: at most 2× git grep).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Git } from '../src/git/index.js'
import { findCandidates, searchTerms } from '../src/planning/index.js'
import { PathPolicy } from '../src/policy/index.js'
import { median, printFigure } from './lib/report.js'

const FILES = Number(process.env.BENCH_SEARCH_FILES ?? 100_000)
const ROUNDS = 3
const ISSUE =
  'parseConfig ignores PORT: `src/pkg7/config.ts` throws "connection reset" when loadSettings runs'

const dir = mkdtempSync(join(tmpdir(), 'patchsmith-bench-search-'))
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: dir, maxBuffer: 1 << 30, encoding: 'utf8' })
try {
  console.log(`bench:search — generating a ${FILES}-file repository…`)
  for (let i = 0; i < FILES; i++) {
    const folder = join(dir, `src/pkg${i % 100}/mod${Math.floor(i / 100) % 50}`)
    if (i < 5_000) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `file${i}.ts`), sourceFile(i))
  }
  mkdirSync(join(dir, 'src/pkg7'), { recursive: true })
  writeFileSync(join(dir, 'src/pkg7/config.ts'), 'export function parseConfig(text) {\n}\n')
  writeFileSync(join(dir, '.env'), 'parseConfig=secret\n')
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'generated')

  const terms = searchTerms(ISSUE)
  const grepArgs = [
    'grep',
    '-l',
    '-z',
    '-F',
    ...[...terms.identifiers, ...terms.phrases].flatMap((t) => ['-e', t]),
    '--'
  ]
  const grep: number[] = []
  const load: number[] = []
  let candidates = 0
  for (let round = 0; round < ROUNDS; round++) {
    let start = performance.now()
    git(...grepArgs)
    grep.push(performance.now() - start)
    start = performance.now()
    // A fresh policy and Git each round, as each run has.
    const found = await findCandidates(await Git.open(dir), new PathPolicy(), terms)
    load.push(performance.now() - start)
    candidates = found.candidates.length
  }
  const [g, l] = [median(grep), median(load)]
  console.log(
    `terms: ${JSON.stringify(terms)}\n` +
      `git grep -l over the terms: ${g.toFixed(0)} ms; load phase (ls-files + grep + policy + ranking): ` +
      `${l.toFixed(0)} ms, ${candidates} candidates (medians of ${ROUNDS})\n`
  )
  printFigure({
    name: `load phase / git grep, ${FILES} files`,
    value: l / g,
    unit: '×',
    anchor: { max: 2, label: 'issue 28; before: 8.1 s, 8× git grep' }
  })
} finally {
  rmSync(dir, { recursive: true, force: true })
}

/** About 20 lines of TypeScript; one file in 500 mentions parseConfig, one in 5 000 defines it. */
function sourceFile(i: number): string {
  const lines = [`import { helper${i % 7} } from './helpers'`, '']
  for (let f = 0; f < 4; f++)
    lines.push(
      `export function handler${i}_${f}(input: number): number {`,
      `  return helper${i % 7}(input) + ${f}`,
      '}',
      ''
    )
  if (i % 500 === 0) lines.push(`const value${i} = parseConfig(text)`)
  if (i % 5_000 === 0) lines.push('export function parseConfig(text: string) { return text }')
  return `${lines.join('\n')}\n`
}
