import { spawnSync } from 'node:child_process'

/** A real commit small enough for a model-sized diff: 1–3 modified text files. */
export interface Commit {
  sha: string
  paths: string[]
  before: Record<string, string>
  after: Record<string, string>
  diff: string
}

export interface HistoryLimits {
  maxFiles: number
  maxChangedLines: number
  maxDiffLines: number
  maxFileBytes: number
}

export const DEFAULT_LIMITS: HistoryLimits = {
  maxFiles: 3,
  maxChangedLines: 60,
  maxDiffLines: 100,
  maxFileBytes: 50_000
}

/** Text a model edits: sources, docs and configuration, not lock files or generated output. */
const TEXT_FILE =
  /\.(py|rst|md|txt|toml|ya?ml|json|js|mjs|cjs|ts|tsx|go|rs|java|kt|c|h|cc|cpp|hpp|rb|php|cs|sh|cfg|ini|html|css|gradle|properties|xml)$/
const GENERATED = /(^|\/)(package-lock\.json|yarn\.lock|Cargo\.lock|go\.sum|[^/]*\.min\.js)$/

function git(gitDir: string, args: string[]): string {
  const run = spawnSync('git', ['--git-dir', gitDir, ...args], {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024
  })
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`)
  return run.stdout
}

interface Candidate {
  sha: string
  paths: string[]
}

/**
 * Commits reachable from `head` that modify (status M) one to three text files, with at most
 * `maxChangedLines` lines added and removed, read from one `git log` pass.
 */
export function candidates(gitDir: string, head: string, limits: HistoryLimits): Candidate[] {
  const log = git(gitDir, [
    'log',
    '--no-merges',
    '--no-renames',
    '--raw',
    '--numstat',
    '--format=@@@%H %P',
    head
  ])
  const out: Candidate[] = []
  for (const block of log.split('@@@').slice(1)) {
    const [first, ...rest] = block.split('\n')
    const [sha, ...parents] = first!.trim().split(' ')
    if (!sha || parents.length !== 1) continue
    const statuses = rest.filter((l) => l.startsWith(':'))
    const stats = rest.filter((l) => /^(\d+|-)\t(\d+|-)\t/.test(l))
    if (statuses.length === 0 || statuses.length > limits.maxFiles) continue
    if (statuses.some((l) => !/\sM\t/.test(l))) continue
    let changed = 0
    let text = true
    const paths: string[] = []
    for (const stat of stats) {
      const [added, removed, path] = stat.split('\t')
      if (added === '-' || removed === '-' || !path) text = false
      changed += Number(added) + Number(removed)
      if (path) paths.push(path)
    }
    if (!text || changed > limits.maxChangedLines || paths.length !== statuses.length) continue
    if (paths.some((p) => !TEXT_FILE.test(p) || GENERATED.test(p))) continue
    out.push({ sha, paths: paths.sort() })
  }
  return out
}

/** The commit's files before and after and its diff, or null when one is not plain UTF-8 text. */
export function readCommit(
  gitDir: string,
  candidate: Candidate,
  limits: HistoryLimits
): Commit | null {
  const before: Record<string, string> = {}
  const after: Record<string, string> = {}
  for (const path of candidate.paths) {
    const old = git(gitDir, ['show', `${candidate.sha}^:${path}`])
    const now = git(gitDir, ['show', `${candidate.sha}:${path}`])
    for (const content of [old, now]) {
      if (Buffer.byteLength(content) > limits.maxFileBytes) return null
      if (/[\0\r\uFFFD]/.test(content)) return null
    }
    before[path] = old
    after[path] = now
  }
  const diff = git(gitDir, [
    'diff',
    '--no-color',
    '--no-ext-diff',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    `${candidate.sha}^`,
    candidate.sha,
    '--',
    ...candidate.paths
  ])
  if (diff.split('\n').length > limits.maxDiffLines) return null
  if (/^(old mode|new mode|Binary files)/m.test(diff)) return null
  return { sha: candidate.sha, paths: candidate.paths, before, after, diff }
}
