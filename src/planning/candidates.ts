import { lstatSync, readFileSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import type { Git } from '../git/index.js'
import type { PathPolicy } from '../policy/index.js'
import { filesContaining } from './content-search.js'
import { listRepoFiles, type RepoFiles } from './repo-files.js'
import { searchTerms, type SearchTerms } from './search-terms.js'

export interface Candidate {
  path: string
  score: number
  /** Why it ranks: 'named in the issue', 'defines parseConfig', … */
  reasons: string[]
  /** Numbered lines around the first definition or mention (the whole file when short). */
  excerpt: string
  /** The lines of that definition (its block) or mention, 1-based inclusive: the plan's line_range. */
  range?: [number, number]
}

const MAX_FILE_BYTES = 512 * 1024
const MAX_CANDIDATES = 8
const WHOLE_FILE_LINES = 60
const EXCERPT_RADIUS = 8
const MAX_EXCERPT_CHARS = 3_000
const MAX_BLOCK_LINES = 200

/**
 * The repository's files and the ranked candidates. Only files that can score are read: those
 * `git grep` finds holding an identifier or a phrase (run beside the listing), and those whose
 * name the issue names. The path policy drops blocked and protected files before any is read,
 * so a refused file's text never reaches a prompt.
 */
export async function findCandidates(
  git: Git,
  policy: PathPolicy,
  terms: SearchTerms
): Promise<{ repo: RepoFiles; candidates: Candidate[] }> {
  const [repo, containing] = await Promise.all([
    listRepoFiles(git, policy),
    filesContaining(git, [...terms.identifiers, ...terms.phrases])
  ])
  const named = nameMatcher(terms)
  const pool = repo.files.filter(
    (path) => (containing.has(path) || named(path)) && policy.check(path) === undefined
  )
  return { repo, candidates: rankCandidates(git.dir, pool, terms) }
}

/** Whether a file's name alone can score: a named path's file name, or an identifier's stem. */
function nameMatcher(terms: SearchTerms): (path: string) => boolean {
  const names = new Set(terms.paths.map((named) => basename(named)))
  const stems = new Set(terms.identifiers.map((id) => id.toLowerCase()))
  if (names.size === 0 && stems.size === 0) return () => false
  return (path) => {
    const name = basename(path)
    return names.has(name) || stems.has(basename(name, extname(name)).toLowerCase())
  }
}

/**
 * Ranks the files by what the issue names: a path named outright, a file that defines a named
 * identifier, one that mentions it or a quoted phrase. Files with no match are not candidates.
 */
export function rankCandidates(
  repoDir: string,
  files: readonly string[],
  terms: SearchTerms
): Candidate[] {
  const ranked: Candidate[] = []
  for (const path of files) {
    const content = readText(join(repoDir, path))
    if (content === undefined) continue
    const candidate = scoreFile(path, content, terms)
    if (candidate) ranked.push(candidate)
  }
  ranked.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path))
  return ranked.slice(0, MAX_CANDIDATES)
}

/**
 * The lines of one file the issue points at, as a plan Patchsmith writes itself would give them
 * (the first definition of a named identifier with its block, else its first mention, else a
 * quoted phrase): undefined when the issue names nothing found in the file.
 */
export function issueFocus(
  path: string,
  content: string,
  issue: { title: string; body: string }
): [number, number] | undefined {
  return scoreFile(path, content, searchTerms(`${issue.title}\n${issue.body}`))?.range
}

function scoreFile(path: string, content: string, terms: SearchTerms): Candidate | undefined {
  let score = 0
  const reasons: string[] = []
  let focus: number | undefined
  let defines = false
  const stem = basename(path, extname(path)).toLowerCase()
  for (const named of terms.paths) {
    if (path === named || path.endsWith(`/${named}`)) {
      score += 100
      reasons.push('named in the issue')
    } else if (basename(path) === basename(named)) {
      score += 30
      reasons.push(`same name as ${named}`)
    }
  }
  for (const id of terms.identifiers) {
    const defined = definitionPattern(id).exec(content)
    if (defined) {
      score += 40
      reasons.push(`defines ${id}`)
      if (focus === undefined) {
        focus = lineOf(content, defined.index + defined[0].indexOf(id))
        defines = true
      }
    }
    const mentions = countWord(content, id)
    if (mentions > 0) {
      score += Math.min(mentions, 5) * 2
      if (!defined) reasons.push(`mentions ${id}`)
      focus ??= lineOf(content, content.search(wordPattern(id)))
    }
    if (stem === id.toLowerCase()) score += 15
  }
  for (const phrase of terms.phrases) {
    const at = content.indexOf(phrase)
    if (at < 0) continue
    score += 15
    reasons.push(`contains "${phrase.slice(0, 40)}"`)
    focus ??= lineOf(content, at)
  }
  if (score === 0) return undefined
  const lines = linesOf(content)
  return {
    path,
    score,
    reasons,
    excerpt: excerpt(lines, focus ?? 1),
    ...(focus !== undefined
      ? { range: [focus, defines ? blockEnd(lines, focus) : focus] as [number, number] }
      : {})
  }
}

/** A definition in the common languages: function/def/class/const…, `name = (…) =>`, a method. */
function definitionPattern(id: string): RegExp {
  const name = escape(id)
  return new RegExp(
    [
      `\\b(?:function\\*?|def|class|fn|func|interface|type|enum|struct|const|let|var)\\s+${name}\\b`,
      `\\b${name}\\s*[:=]\\s*(?:async\\s+)?(?:function\\b|\\([^)]*\\)\\s*=>|[A-Za-z_$][\\w$]*\\s*=>)`,
      `^[ \\t]*(?:(?:export|public|private|protected|static|async|override)\\s+)*${name}\\s*\\([^)]*\\)\\s*(?::[^{\\n]+)?\\{`
    ].join('|'),
    'm'
  )
}

function wordPattern(id: string): RegExp {
  return new RegExp(`(?<![\\w$])${escape(id)}(?![\\w$])`, 'g')
}

function countWord(content: string, id: string): number {
  return content.match(wordPattern(id))?.length ?? 0
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function lineOf(content: string, index: number): number {
  return index < 0 ? 1 : content.slice(0, index).split('\n').length
}

function readText(file: string): string | undefined {
  try {
    const stat = lstatSync(file)
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined
    const content = readFileSync(file, 'utf8')
    return content.includes('\0') ? undefined : content
  } catch {
    return undefined
  }
}

function linesOf(content: string): string[] {
  const lines = content.replace(/\r\n/g, '\n').split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/**
 * The last line of the block a definition on line `start` opens, by indentation (no parse):
 * up to the next non-blank line indented no deeper than the definition, taking it in when it
 * closes the block (`}`, `end`, `)`); at most MAX_BLOCK_LINES.
 */
function blockEnd(lines: readonly string[], start: number): number {
  const indent = (line: string) => line.length - line.trimStart().length
  const own = indent(lines[start - 1] ?? '')
  const limit = Math.min(lines.length, start + MAX_BLOCK_LINES - 1)
  let last = start
  for (let n = start + 1; n <= limit; n++) {
    const line = lines[n - 1]!
    if (line.trim() === '') continue
    if (indent(line) <= own) return /^\s*(?:[}\])]|end\b)/.test(line) ? n : last
    last = n
  }
  return last
}

function excerpt(lines: readonly string[], focus: number): string {
  const [start, end] =
    lines.length <= WHOLE_FILE_LINES
      ? [1, lines.length]
      : [Math.max(1, focus - EXCERPT_RADIUS), Math.min(lines.length, focus + EXCERPT_RADIUS)]
  const width = String(end).length
  let text = lines
    .slice(start - 1, end)
    .map((line, i) => `${String(start + i).padStart(width)} | ${line}`)
    .join('\n')
  if (text.length > MAX_EXCERPT_CHARS) text = `${text.slice(0, MAX_EXCERPT_CHARS)}\n…`
  const total = `(${lines.length} lines${lines.length > end - start + 1 ? `, lines ${start}-${end} shown` : ''})`
  return `${total}\n${text}`
}
