import { createHash } from 'node:crypto'
import { SecurityViolationError } from '../contract/index.js'
import { RepoIntegrity } from '../git/repo-integrity.js'
import type { GuardedEdit } from './edit-guard.js'
import { printable, type PathPolicy } from './path-policy.js'
import type { GitRunner } from './repo-paths.js'

const STATUS = { CREATE: 'A', MODIFY: 'M', DELETE: 'D' } as const
// Rules that make a file that validation left behind a problem, even though it is not staged.
const WATCHED_RULES = new Set(['protected-path', 'blocked-path', 'git-directory'])

function unexpected(stage: string, problems: string[]): SecurityViolationError {
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
  const problems: string[] = []
  const expected = new Map(edits.map((edit) => [edit.path, edit]))
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
  const staged = rawEntries(raw)
  for (const entry of staged) {
    const edit = expected.get(entry.path)
    const path = printable(entry.path)
    if (!edit) {
      problems.push(`"${path}" is staged but not approved`)
      continue
    }
    if (entry.status !== STATUS[edit.operation]) {
      problems.push(`"${path}" is ${entry.status}, approved ${STATUS[edit.operation]}`)
      continue
    }
    if (edit.after === null) continue
    if (entry.newMode !== '100644' && entry.newMode !== entry.oldMode)
      problems.push(`"${path}" has mode ${entry.newMode}`)
    if (entry.newSha !== blobId(edit.after, entry.newSha.length))
      problems.push(`"${path}" is staged with other content than approved`)
  }
  const seen = new Set(staged.map((entry) => entry.path))
  for (const path of expected.keys())
    if (!seen.has(path)) problems.push(`"${printable(path)}" was approved but is not staged`)
  if (problems.length > 0) throw unexpected(stage, problems)
  return patch
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

/**
 * Wraps the one step that runs repository code: before it, `.git/config`, hooks and the git
 * config files are hashed and the work tree's status is noted; after it, any change to those is
 * `repo-tampered`, and a staged change or a new or modified file in a protected or blocked path
 * is `unexpected-changes`. Either stops the run before the commit and the push.
 */
export class ValidationWatch {
  private constructor(
    private readonly integrity: RepoIntegrity,
    private readonly before: ReadonlySet<string>,
    private readonly git: GitRunner,
    private readonly policy: PathPolicy
  ) {}

  static async start(
    repoDir: string,
    git: GitRunner,
    policy: PathPolicy
  ): Promise<ValidationWatch> {
    const integrity = await RepoIntegrity.snapshot(repoDir)
    return new ValidationWatch(integrity, new Set(await changedPaths(git)), git, policy)
  }

  /**
   * Throws when validation tampered with git or changed what it must not; `edits` as applied.
   * Returns the staged patch (assertExactChanges).
   */
  async assertClean(edits: readonly GuardedEdit[]): Promise<string> {
    await this.integrity.assertUnchanged()
    const approved = new Set(edits.map((edit) => edit.path))
    const problems: string[] = []
    for (const path of await changedPaths(this.git)) {
      if (approved.has(path) || this.before.has(path)) continue
      const violation = this.policy.checkName(path) ?? this.policy.checkProtected(path)
      if (violation && WATCHED_RULES.has(violation.rule))
        problems.push(`validation changed "${printable(path)}" (${violation.rule})`)
    }
    if (problems.length > 0) throw unexpected('validation', problems)
    return assertExactChanges(this.git, edits, 'validation')
  }
}

/** Paths git status reports (tracked changes and untracked files, not ignored ones). */
async function changedPaths(git: GitRunner): Promise<string[]> {
  const out = await git.exec([
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--no-renames'
  ])
  return nulFields(out.stdout)
    .filter((field) => field.length > 3)
    .map((field) => field.slice(3))
}

function nulFields(text: string): string[] {
  return text.split('\0').filter((field) => field.length > 0)
}

function blobId(content: string, length: number): string {
  const body = Buffer.from(content)
  return createHash(length === 64 ? 'sha256' : 'sha1')
    .update(`blob ${body.length}\0`)
    .update(body)
    .digest('hex')
}
