import { createHash } from 'node:crypto'
import { SecurityViolationError } from '../contract/index.js'
import type { SecretMasker } from '../secrets/index.js'
import type { GuardedEdit } from './edit-guard.js'
import { printable } from './path-policy.js'
import type { GitRunner } from './repo-paths.js'
import { nulFields } from '../git/index.js'

const STATUS = { CREATE: 'A', MODIFY: 'M', DELETE: 'D' } as const
export function unexpected(stage: string, problems: string[]): SecurityViolationError {
  return new SecurityViolationError(
    `Refused the change (${stage}): ${problems.slice(0, 5).join('; ')} [rule unexpected-changes].`,
    { rule: 'unexpected-changes', stage, problems: problems.slice(0, 20) }
  )
}

/**
 * After `git apply --index`, and again after validation: the index differs from HEAD in exactly
 * the approved paths, each with the approved operation, the approved content and a regular-file
 * mode (100644, or the mode the file already had). Anything else stops the run before a commit.
 * Returns the staged patch as git renders it (full index lines), which is the patch of a commit
 * made from this index.
 */
export async function assertExactChanges(
  git: GitRunner,
  edits: readonly GuardedEdit[],
  stage: string
): Promise<string> {
  // One process: status, both modes and the staged blob of every path that differs from HEAD,
  // then the patch (no external diff driver or textconv: repository config must not run).
  const out = await git.exec([
    'diff',
    '--cached',
    '--raw',
    '--patch',
    '-z',
    '--no-abbrev',
    '--full-index',
    '--no-renames',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    'HEAD',
    '--'
  ])
  const { raw, patch } = splitRawAndPatch(out.stdout)
  const problems = entryProblems(rawEntries(raw), edits, 'staged')
  if (problems.length > 0) throw unexpected(stage, problems)
  return patch
}

/**
 * After the commit, before the push: between the base and the tip lie exactly `count` commits in
 * one line on the base, and together they change exactly the approved paths to the approved
 * contents. What git committed is checked, not what was staged before: code that ran between
 * the checks and the commit cannot slip anything in.
 */
export async function assertCommittedAsApproved(
  git: GitRunner,
  base: string,
  tip: string,
  edits: readonly GuardedEdit[],
  count: number,
  options: { content?: boolean } = {}
): Promise<void> {
  const { commits, raw } = await committedChain(git, base, tip, count)
  const problems: string[] = []
  if (commits.length !== count)
    problems.push(`${commits.length} commit(s) on the base, made ${count}`)
  if (commits.some((shas) => shas.length !== 2)) problems.push('a merge commit on the branch')
  if (commits.at(-1)?.[1] !== base) problems.push('the branch does not start at the base')
  problems.push(...entryProblems(rawEntries(raw), edits, 'committed', options.content))
  if (problems.length > 0) throw unexpected('commit', problems)
}

/**
 * The commits between the base and the tip (each as its SHA and parents) and the raw diff from
 * the base to the tip. For the usual single commit one `git log` gives both: when it lists one
 * commit whose only parent is the base, that commit's diff is the diff from the base. Anything
 * else (more commits, a merge, another parent) reads the whole range and the net diff apart.
 */
async function committedChain(
  git: GitRunner,
  base: string,
  tip: string,
  count: number
): Promise<{ commits: string[][]; raw: string }> {
  if (count === 1) {
    const log = await git.exec([
      'log',
      '--format=%H %P',
      '-z',
      '--raw',
      '-r',
      '--no-abbrev',
      '--no-renames',
      '--max-count=2',
      tip,
      `^${base}`,
      '--'
    ])
    const header = log.stdout.slice(0, Math.max(0, log.stdout.indexOf('\0')))
    const raw = log.stdout.slice(header.length + 1).replace(/^\n/, '')
    const shas = header.split(' ')
    // A second commit's header would follow the raw records as a field that is not one.
    const single = nulFields(raw).every((field, i) => i % 2 === 1 || field.startsWith(':'))
    if (single && shas.length === 2 && shas[0] === tip && shas[1] === base)
      return { commits: [shas], raw }
  }
  const [chain, tree] = await Promise.all([
    git.exec(['rev-list', '--parents', tip, `^${base}`, '--']),
    git.exec(['diff-tree', '-r', '-z', '--raw', '--no-abbrev', '--no-renames', base, tip])
  ])
  const commits = chain.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
  return { commits, raw: tree.stdout }
}

/**
 * Before the commit: no file the change writes holds a known secret of the run (in any encoding
 * the masker knows, secret-encodings.ts) more often than it did before, whatever put it there
 * (a fix command, a secret registered after the edit was guarded, such as the push credential).
 * The file is named, never the secret.
 */
export function assertNoSecretInChange(edits: readonly GuardedEdit[], masker: SecretMasker): void {
  for (const edit of edits) {
    if (edit.after === null) continue
    if (masker.countKnown(edit.after) <= masker.countKnown(edit.before ?? '')) continue
    throw new SecurityViolationError(
      `Refused the commit: "${printable(edit.path)}" would hold a secret of this run (the value or an encoding of it); nothing is committed or pushed [rule secret-in-change].`,
      { path: edit.path, rule: 'secret-in-change', stage: 'commit' }
    )
  }
}

/** Where the entries git lists differ from the approved edits: path, operation, content, mode. */
function entryProblems(
  entries: readonly RawEntry[],
  edits: readonly GuardedEdit[],
  verb: string,
  content = true
): string[] {
  const problems: string[] = []
  const expected = new Map(edits.map((edit) => [edit.path, edit]))
  for (const entry of entries) {
    const edit = expected.get(entry.path)
    const path = printable(entry.path)
    if (!edit) {
      problems.push(`"${path}" is ${verb} but not approved`)
      continue
    }
    if (entry.status !== STATUS[edit.operation]) {
      problems.push(`"${path}" is ${entry.status}, approved ${STATUS[edit.operation]}`)
      continue
    }
    if (edit.after === null) continue
    if (entry.newMode !== '100644' && entry.newMode !== entry.oldMode)
      problems.push(`"${path}" has mode ${entry.newMode}`)
    if (content && entry.newSha !== blobId(edit.after, entry.newSha.length))
      problems.push(`"${path}" is ${verb} with other content than approved`)
  }
  const seen = new Set(entries.map((entry) => entry.path))
  for (const path of expected.keys())
    if (!seen.has(path)) problems.push(`"${printable(path)}" was approved but is not ${verb}`)
  return problems
}

/** `--raw -z --patch`: the raw records end with an empty field, then the patch follows. */
function splitRawAndPatch(stdout: string): { raw: string; patch: string } {
  const end = stdout.indexOf('\0\0')
  return end < 0
    ? { raw: stdout, patch: '' }
    : { raw: stdout.slice(0, end + 1), patch: stdout.slice(end + 2) }
}

interface RawEntry {
  oldMode: string
  newMode: string
  newSha: string
  status: string
  path: string
}

/** `git diff --raw -z`: ":oldmode newmode oldsha newsha status" NUL path NUL, per path. */
function rawEntries(stdout: string): RawEntry[] {
  const fields = stdout.split('\0')
  const entries: RawEntry[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, , newSha, status] = fields[i]!.replace(/^:/, '').split(' ')
    if (!status) continue
    entries.push({
      oldMode: oldMode!,
      newMode: newMode!,
      newSha: newSha!,
      status,
      path: fields[i + 1]!
    })
  }
  return entries
}

function blobId(content: string, length: number): string {
  const body = Buffer.from(content)
  return createHash(length === 64 ? 'sha256' : 'sha1')
    .update(`blob ${body.length}\0`)
    .update(body)
    .digest('hex')
}
