import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'
import { gitDirs, RepoIntegrity } from '../git/repo-integrity.js'
import type { SecretMasker } from '../secrets/index.js'
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

/**
 * Wraps the one step that runs repository code: before it, `.git/config`, hooks and the git
 * config files are hashed and the work tree's status is noted; after it, any change to those is
 * `repo-tampered`, and a staged change or a new or modified file in a protected or blocked path
 * is `unexpected-changes`. Either stops the run before the commit and the push.
 */
export class ValidationWatch {
  /**
   * The status assertClean took, once validation had ended: the settle that follows at once
   * reads it instead of scanning the work tree twice more (`diff`, `ls-files --others`).
   */
  private settled?: StatusEntry[]

  private constructor(
    private readonly integrity: RepoIntegrity,
    private readonly before: ReadonlySet<string>,
    private readonly refs: ReadonlyMap<string, string>,
    private readonly git: GitRunner,
    private readonly policy: PathPolicy,
    private readonly repoDir: string
  ) {}

  static async start(
    repoDir: string,
    git: GitRunner,
    policy: PathPolicy
  ): Promise<ValidationWatch> {
    const integrity = await RepoIntegrity.snapshot(repoDir)
    const [before, refs] = await Promise.all([workTreeStatus(git), refState(git, repoDir)])
    const paths = new Set(before.map((e) => e.path))
    return new ValidationWatch(integrity, paths, refs, git, policy, repoDir)
  }

  /**
   * After a green validation: tracked files back to what is staged (the commit to be), and the
   * untracked files validation created removed (ignored build output stays), so the work tree a
   * pull-request step picks up is exactly the commit.
   */
  async settleWorkTree(): Promise<void> {
    const status = this.takeStatus()
    // Work tree unlike the index: what `git diff --name-only` lists.
    const dirty = status
      ? status.filter((e) => e.xy !== '??' && e.xy[1] !== ' ').map((e) => e.path)
      : nulFields(
          (
            await this.git.exec([
              'diff',
              '--name-only',
              '-z',
              '--no-ext-diff',
              '--no-textconv',
              '--ignore-submodules=all'
            ])
          ).stdout
        )
    if (dirty.length > 0)
      await this.git.exec(['--literal-pathspecs', 'checkout', '--quiet', '--', ...dirty])
    await this.removeUntracked(status)
  }

  /**
   * The untracked, not ignored files that appeared while validation ran, removed: after a
   * failed validation too, so neither the next attempt nor the user finds them. Files that were
   * there before (the user's own) stay.
   */
  async removeCreatedFiles(): Promise<void> {
    await this.removeUntracked(this.takeStatus())
  }

  private async removeUntracked(status: StatusEntry[] | undefined): Promise<void> {
    const untracked = (
      status
        ? status.filter((e) => e.xy === '??').map((e) => e.path)
        : nulFields(
            (await this.git.exec(['ls-files', '--others', '--exclude-standard', '-z'])).stdout
          )
    ).filter((path) => !this.before.has(path))
    if (untracked.length > 0)
      await this.git.exec(['--literal-pathspecs', 'clean', '-f', '-q', '--', ...untracked])
  }

  /** The status assertClean took, once: any later settle scans the work tree again. */
  private takeStatus(): StatusEntry[] | undefined {
    const status = this.settled
    this.settled = undefined
    return status
  }

  /**
   * Throws when validation tampered with git or changed what it must not; `edits` as applied.
   * Returns the staged patch (assertExactChanges).
   */
  async assertClean(edits: readonly GuardedEdit[]): Promise<string> {
    this.settled = undefined
    await this.integrity.assertUnchanged()
    await this.assertRefsUnchanged()
    const approved = new Set(edits.map((edit) => edit.path))
    const problems: string[] = []
    const status = await workTreeStatus(this.git)
    for (const { path } of status) {
      if (approved.has(path) || this.before.has(path)) continue
      const violation = this.policy.checkName(path) ?? this.policy.checkProtected(path)
      if (violation && WATCHED_RULES.has(violation.rule))
        problems.push(`validation changed "${printable(path)}" (${violation.rule})`)
    }
    if (problems.length > 0) throw unexpected('validation', problems)
    const staged = await assertExactChanges(this.git, edits, 'validation')
    this.settled = status
    return staged
  }

  private async assertRefsUnchanged(): Promise<void> {
    const now = await refState(this.git, this.repoDir)
    const names = new Set([...this.refs.keys(), ...now.keys()])
    const changed = [...names].filter((name) => this.refs.get(name) !== now.get(name)).sort()
    if (changed.length === 0) return
    throw new SecurityViolationError(
      `Validation changed git's refs (${changed.slice(0, 5).join(', ')}); nothing is committed or pushed after that [rule repo-tampered].`,
      { rule: 'repo-tampered', stage: 'validation', changed: changed.slice(0, 20) }
    )
  }
}

/**
 * HEAD (what it points to and at), every ref and the stash list: validation that commits,
 * moves a branch or HEAD, or drops the user's stash is refused (the rollback that follows puts
 * the branch back; the user's stash is restored from its commit, which a drop does not delete).
 * One process: HEAD is read from its file (the ref it names, or the commit when detached; the
 * ref's own value is in the list), and the stash's reflog only when there is a stash (without
 * `refs/stash` there is no list to read, and a stash made or dropped changes the refs).
 */
async function refState(git: GitRunner, repoDir: string): Promise<Map<string, string>> {
  const refs = await git.exec(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)'])
  const state = new Map<string, string>()
  for (const line of refs.stdout.split('\n')) {
    const [name, sha, symref] = line.split('\0')
    if (name && sha !== undefined) state.set(name, `${sha} ${symref ?? ''}`)
  }
  state.set('HEAD', headFile(repoDir))
  const stash = state.has('refs/stash')
    ? await git.exec(['log', '--walk-reflogs', '--format=%H', 'refs/stash', '--'], {
        allowFailure: true
      })
    : undefined
  state.set('stash list', stash?.stdout.trim() ?? '')
  return state
}

function headFile(repoDir: string): string {
  try {
    return `file ${readFileSync(join(gitDirs(repoDir)[0]!, 'HEAD'), 'utf8')}`
  } catch (error) {
    return `unreadable ${(error as NodeJS.ErrnoException).code ?? ''}`
  }
}

interface StatusEntry {
  /** `git status --porcelain=v1`'s two letters: index, work tree ('??' untracked). */
  xy: string
  path: string
}

/** What git status reports: tracked changes and untracked files (not ignored ones). */
async function workTreeStatus(git: GitRunner): Promise<StatusEntry[]> {
  const out = await git.exec([
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    // A gitlink's folder may hold a repository validation made, with config of its own.
    '--ignore-submodules=all'
  ])
  return nulFields(out.stdout)
    .filter((field) => field.length > 3)
    .map((field) => ({ xy: field.slice(0, 2), path: field.slice(3) }))
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
