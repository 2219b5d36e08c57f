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
 */
export async function assertExactChanges(
  git: GitRunner,
  edits: readonly GuardedEdit[],
  stage: string
): Promise<void> {
  const problems: string[] = []
  const expected = new Map(edits.map((edit) => [edit.path, STATUS[edit.operation]]))
  const staged = nulFields(
    (await git.exec(['diff', '--cached', '--name-status', '-z', '--no-renames', 'HEAD', '--']))
      .stdout
  )
  const seen = new Set<string>()
  for (let i = 0; i + 1 < staged.length; i += 2) {
    const [status, path] = [staged[i]!, staged[i + 1]!]
    seen.add(path)
    const want = expected.get(path)
    if (want === undefined) problems.push(`"${printable(path)}" is staged but not approved`)
    else if (status !== want) problems.push(`"${printable(path)}" is ${status}, approved ${want}`)
  }
  for (const path of expected.keys())
    if (!seen.has(path)) problems.push(`"${printable(path)}" was approved but is not staged`)
  const kept = edits.filter((edit) => edit.after !== null)
  if (kept.length > 0) {
    const paths = kept.map((edit) => edit.path)
    const index = entries(await git.exec(['ls-files', '-s', '-z', '--', ...paths]))
    const head = entries(await git.exec(['ls-tree', '-z', 'HEAD', '--', ...paths]))
    for (const edit of kept) {
      const entry = index.get(edit.path)
      if (!entry) continue
      if (entry.mode !== '100644' && entry.mode !== head.get(edit.path)?.mode)
        problems.push(`"${printable(edit.path)}" has mode ${entry.mode}`)
      if (entry.sha !== blobId(edit.after!, entry.sha.length))
        problems.push(`"${printable(edit.path)}" is staged with other content than approved`)
    }
  }
  if (problems.length > 0) throw unexpected(stage, problems)
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

  /** Throws when validation tampered with git or changed what it must not; `edits` as applied. */
  async assertClean(edits: readonly GuardedEdit[]): Promise<void> {
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
    await assertExactChanges(this.git, edits, 'validation')
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

function entries(out: { stdout: string }): Map<string, { mode: string; sha: string }> {
  const map = new Map<string, { mode: string; sha: string }>()
  for (const record of nulFields(out.stdout)) {
    const tab = record.indexOf('\t')
    const [mode, second, third] = record.slice(0, tab).split(' ')
    // ls-files -s: "mode sha stage"; ls-tree: "mode type sha".
    const sha = /^[0-9a-f]{40,64}$/.test(second ?? '') ? second! : third!
    map.set(record.slice(tab + 1), { mode: mode!, sha })
  }
  return map
}

function blobId(content: string, length: number): string {
  const body = Buffer.from(content)
  return createHash(length === 64 ? 'sha256' : 'sha1')
    .update(`blob ${body.length}\0`)
    .update(body)
    .digest('hex')
}
