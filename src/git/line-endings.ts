import type { Git } from './git.js'

interface TextEdit {
  path: string
  before: string | null
  after: string | null
}

type Conversion = 'none' | 'always' | 'auto'

/**
 * The contents of edits as git stores them, not as the work tree shows them: with
 * `core.autocrlf`, `text`, `text=auto` or `eol=crlf` the work tree holds CRLF and the blob LF.
 * A patch of blob contents is what `git apply --index` applies to the index (and git writes the
 * work tree with its own endings again), and what the commit is built from, so the committed
 * blob follows the repository's attributes and the work tree keeps its endings.
 *
 * This is git's convert-to-git for line endings (convert.c), done here because git has no
 * command that returns the converted text without also running the repository's filters:
 * `-text` never converts; `text` or `eol` always turns CRLF into LF; `text=auto` (and
 * `core.autocrlf` without a text attribute) does for text content whose blob in the index has
 * no CRLF of its own ("safe autocrlf": a file committed with CRLF keeps them).
 */
export async function asStoredByGit<T extends TextEdit>(
  git: Git,
  edits: readonly T[]
): Promise<T[]> {
  const withCr = edits.filter((edit) => edit.before?.includes('\r') || edit.after?.includes('\r'))
  if (withCr.length === 0) return [...edits]
  const paths = withCr.map((edit) => edit.path)
  const [conversions, indexCrlf] = await Promise.all([
    conversionsOf(git, paths),
    pathsWithCrlfInIndex(git, paths)
  ])
  return edits.map((edit) => {
    const conversion = conversions.get(edit.path) ?? 'none'
    if (conversion === 'none') return edit
    const convert = (text: string | null) =>
      text === null || (conversion === 'auto' && (indexCrlf.has(edit.path) || text.includes('\0')))
        ? text
        : text.replace(/\r\n/g, '\n')
    return { ...edit, before: convert(edit.before), after: convert(edit.after) }
  })
}

async function conversionsOf(git: Git, paths: readonly string[]): Promise<Map<string, Conversion>> {
  const [attributes, autocrlf] = await Promise.all([
    git.exec(['check-attr', '-z', 'text', 'eol', 'binary', '--stdin'], {
      input: paths.join('\0') + '\0'
    }),
    git.exec(['config', '--get', 'core.autocrlf'], { allowFailure: true })
  ])
  const byPath = new Map<string, Record<string, string>>()
  const fields = attributes.stdout.split('\0')
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const values = byPath.get(fields[i]!) ?? {}
    values[fields[i + 1]!] = fields[i + 2]!
    byPath.set(fields[i]!, values)
  }
  const auto = ['true', 'input'].includes(autocrlf.stdout.trim().toLowerCase())
  const result = new Map<string, Conversion>()
  for (const path of paths) {
    const { text = 'unspecified', eol = 'unspecified', binary } = byPath.get(path) ?? {}
    let conversion: Conversion
    if (binary === 'set' || text === 'unset') conversion = 'none'
    else if (text === 'set') conversion = 'always'
    else if (text === 'auto') conversion = 'auto'
    else if (eol === 'lf' || eol === 'crlf') conversion = 'always'
    else conversion = auto ? 'auto' : 'none'
    result.set(path, conversion)
  }
  return result
}

/** Paths whose blob in the index already holds CRLF (`git ls-files --eol`: i/crlf, i/mixed). */
async function pathsWithCrlfInIndex(git: Git, paths: readonly string[]): Promise<Set<string>> {
  const out = await git.exec(['ls-files', '--eol', '-z', '--', ...paths.map(literalPathspec)])
  const found = new Set<string>()
  for (const record of out.stdout.split('\0')) {
    const tab = record.indexOf('\t')
    if (tab < 0) continue
    if (/^i\/(crlf|mixed)\b/.test(record)) found.add(record.slice(tab + 1))
  }
  return found
}

function literalPathspec(path: string): string {
  return `:(literal)${path}`
}
