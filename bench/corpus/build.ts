/**
 * Builds a patch-recovery corpus from a repository's real history, the way `../shared/bench/*.jsonl`
 * were made: `tsx bench/corpus/build.ts --git-dir DIR --name NAME [--head REV] [--count 200]
 * [--seed 37] --out FILE.jsonl[.gz]`.
 *
 * Each case is one commit that modifies one to three text files: the files before, the diff git
 * writes for it damaged by seeded mutations (see mutations.ts) and wrapped as a model would wrap
 * it, and the files after, or null where the damage leaves the intent ambiguous or unrecoverable
 * (see ambiguity.ts). The same repository head, seed and count give the same corpus byte for byte.
 */
import { writeFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { applyPatch, parsePatch } from 'diff'
import { unrecoverable } from './ambiguity.js'
import { parseGitDiff, renderDiff, type FileDiff } from './diff-model.js'
import { candidates, DEFAULT_LIMITS, readCommit, type Commit } from './history.js'
import { MUTATIONS, wrap } from './mutations.js'
import { hash32, seeded, type Random } from './random.js'

function option(name: string, fallback?: string): string {
  const at = process.argv.indexOf(`--${name}`)
  const value = at >= 0 ? process.argv[at + 1] : fallback
  if (value === undefined) {
    console.error(
      'usage: tsx bench/corpus/build.ts --git-dir DIR --name NAME [--head REV] [--count N] [--seed N] --out FILE.jsonl[.gz]'
    )
    process.exit(2)
  }
  return value
}

const gitDir = option('git-dir')
const name = option('name')
const head = option('head', 'HEAD')
const count = Number(option('count', '200'))
const seed = Number(option('seed', '37'))
const out = option('out')

/** How many damages a case gets: about a quarter none, as in the shared corpora. */
function damageCount(random: Random): number {
  const roll = random.next()
  return roll < 0.23 ? 0 : roll < 0.66 ? 1 : roll < 0.93 ? 2 : 3
}

function mutate(commit: Commit, random: Random) {
  const diff: FileDiff[] = parseGitDiff(commit.diff)
  const single = commit.paths.length === 1
  const labels: string[] = []
  for (let left = damageCount(random); left > 0; left--) {
    const open = MUTATIONS.filter((m) => !labels.includes(m.label) && m.applies(diff, single))
    if (open.length === 0) break
    const mutation = random.pick(open)
    mutation.apply(diff, random, commit.before)
    labels.push(mutation.label)
  }
  if (labels.length === 0) labels.push('clean')
  const roll = random.next()
  const wrapper = roll < 0.19 ? 'fence' : roll < 0.38 ? 'tool-call' : null
  if (wrapper) labels.push(wrapper)
  let text = renderDiff(diff)
  if (labels.includes('crlf')) text = text.replace(/\n/g, '\r\n')
  return { labels, diff, patch: wrap(text, wrapper, random) }
}

/** The clean diff must turn the files before into the files after, or the commit is skipped. */
function diffReproduces(commit: Commit): boolean {
  const files = { ...commit.before }
  for (const patch of parsePatch(commit.diff)) {
    const path = patch.newFileName?.replace(/^b\//, '')
    if (path === undefined || !(path in files)) return false
    const after = applyPatch(files[path]!, patch)
    if (after === false) return false
    files[path] = after
  }
  return commit.paths.every((path) => files[path] === commit.after[path])
}

const order = candidates(gitDir, head, DEFAULT_LIMITS)
  .map((candidate) => ({ candidate, key: hash32(`${seed}:${candidate.sha}`) }))
  .sort((a, b) => a.key - b.key || a.candidate.sha.localeCompare(b.candidate.sha))

const lines: string[] = []
let toRefuse = 0
for (const { candidate } of order) {
  if (lines.length >= count) break
  const commit = readCommit(gitDir, candidate, DEFAULT_LIMITS)
  if (!commit || !diffReproduces(commit)) continue
  const random = seeded(hash32(`${seed}:${name}:${commit.sha}`))
  const { labels, diff, patch } = mutate(commit, random)
  const why = unrecoverable(diff, commit.before)
  if (why) toRefuse++
  lines.push(
    JSON.stringify({
      id: `${name}-${String(lines.length + 1).padStart(4, '0')}`,
      source: `${name}@${commit.sha}`,
      mutations: labels,
      files: commit.before,
      target: commit.paths.length === 1 ? commit.paths[0] : null,
      patch,
      expected: why ? null : commit.after
    })
  )
}
const body = `${lines.join('\n')}\n`
writeFileSync(out, out.endsWith('.gz') ? gzipSync(body, { level: 9 }) : body)
console.log(
  `${out}: ${lines.length} cases (${toRefuse} to refuse) from ${order.length} candidate commits of ${name} at ${head}`
)
