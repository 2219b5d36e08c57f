/**
 * The Git Data API side of the loopback GitHub server, backed by a test's bare `origin` with real
 * git plumbing: blobs and trees (hash-object, update-index in a private index, write-tree),
 * commits (commit-tree), refs (update-ref). A commit made without an author or committer is
 * signed by GitHub: it is recorded as verified, in `verified` and in the origin's
 * `verified-commits` file, which the ruleset's pre-receive hook reads.
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface GitDataState {
  /** The bare repository the API writes to. */
  origin: string
  verified: Set<string>
  /**
   * A GitHub that does not do what it was asked: `tree` answers a tree with one more file (and
   * says so), `commit` commits a tree with one more file while it reports the requested one.
   */
  tamper?: 'tree' | 'commit'
  /**
   * A GitHub whose answers get lost: the next N ref creations are done (when the ref does not
   * exist yet) and answered 502 all the same, as after a proxy's time-out.
   */
  loseRefAnswers?: number
  /**
   * A GitHub slower than the client's time-out: the next N ref creations are done, and their
   * answer is held until the client gives up waiting (closes the request), then let go.
   */
  holdRefAnswers?: number
  /** How many held answers the client gave up on. */
  givenUp?: number
  /** The next N tree, commit or ref requests answer this 5xx and do nothing. */
  failing?: { status: number; times: number }
}

interface Answer {
  status: number
  body?: unknown
  /** Not sent until the client gives up on it; then this is called. */
  holdUntilGivenUp?: () => void
}

const REPO = '^/repos/[^/]+/[^/]+/git'
const TREES = new RegExp(`${REPO}/trees$`)
const COMMITS = new RegExp(`${REPO}/commits$`)
const REFS = new RegExp(`${REPO}/refs$`)
const REF = new RegExp(`${REPO}/refs/(.+)$`)
const ZERO = '0'.repeat(40)
const TAMPERED = 'tampered.txt'

export function gitDataAnswer(
  state: GitDataState | undefined,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  request: { method: string; path: string; body: any }
): Answer | undefined {
  if (!state) return undefined
  const { method, path, body } = request
  const git = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    execFileSync('git', args, {
      cwd: state.origin,
      input: options.input,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe']
    })
      .toString('utf8')
      .trim()
  const refused = (message: string): Answer => ({ status: 422, body: { message } })
  let match: RegExpExecArray | null
  if (state.failing && state.failing.times > 0 && /\/git\//.test(path)) {
    state.failing.times--
    return { status: state.failing.status, body: { message: 'Server Error' } }
  }
  try {
    if (method === 'POST' && TREES.test(path)) {
      const sha = makeTree(git, body.base_tree, body.tree, state.tamper === 'tree')
      return { status: 201, body: { sha, tree: [] } }
    }
    if (method === 'POST' && COMMITS.test(path)) {
      const tree = state.tamper === 'commit' ? makeTree(git, body.tree, [], true) : body.tree
      const signed = !body.author && !body.committer
      const sha = git(
        ['commit-tree', tree, ...(body.parents as string[]).flatMap((p) => ['-p', p]), '-F', '-'],
        {
          input: body.message,
          env: {
            GIT_AUTHOR_NAME: body.author?.name ?? 'github-actions[bot]',
            GIT_AUTHOR_EMAIL: body.author?.email ?? 'github-actions[bot]@users.noreply.github.com',
            GIT_COMMITTER_NAME: body.committer?.name ?? 'GitHub',
            GIT_COMMITTER_EMAIL: body.committer?.email ?? 'noreply@github.com'
          }
        }
      )
      if (signed) {
        state.verified.add(sha)
        appendFileSync(join(state.origin, 'verified-commits'), `${sha}\n`)
      }
      const verification = { verified: signed, reason: signed ? 'valid' : 'unsigned' }
      return {
        status: 201,
        body: { sha, tree: { sha: body.tree }, message: body.message, verification }
      }
    }
    if (method === 'POST' && REFS.test(path)) {
      const exists = git(['for-each-ref', body.ref]) !== ''
      const lose = (state.loseRefAnswers ?? 0) > 0
      if (lose) state.loseRefAnswers! -= 1
      const hold = !lose && (state.holdRefAnswers ?? 0) > 0
      if (hold) state.holdRefAnswers! -= 1
      if (!exists) git(['update-ref', body.ref, body.sha, ZERO])
      if (lose) return { status: 502, body: { message: 'Bad Gateway' } }
      if (hold)
        return {
          status: 201,
          body: { ref: body.ref, object: { sha: body.sha, type: 'commit' } },
          holdUntilGivenUp: () => (state.givenUp = (state.givenUp ?? 0) + 1)
        }
      if (exists) return refused('Reference already exists')
      return { status: 201, body: { ref: body.ref, object: { sha: body.sha, type: 'commit' } } }
    }
    if ((method === 'PATCH' || method === 'DELETE') && (match = REF.exec(path))) {
      const ref = `refs/${decodeURIComponent(match[1]!)}`
      const current = git(['for-each-ref', '--format=%(objectname)', ref])
      if (!current) return refused('Reference does not exist')
      if (method === 'DELETE') {
        git(['update-ref', '-d', ref, current])
        return { status: 204 }
      }
      const forward = (() => {
        try {
          git(['merge-base', '--is-ancestor', current, body.sha])
          return true
        } catch {
          return false
        }
      })()
      if (!body.force && !forward) return refused('Update is not a fast forward')
      git(['update-ref', ref, body.sha, current])
      return { status: 200, body: { ref, object: { sha: body.sha, type: 'commit' } } }
    }
  } catch (error) {
    return refused(`Invalid request: ${String((error as Error).message).split('\n')[0]}`)
  }
  return undefined
}

/** `base` with the entries put in, in a private index; with `extra`, one file more. */
function makeTree(
  git: (args: string[], options?: { input?: string; env?: Record<string, string> }) => string,
  base: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entries: any[],
  extra: boolean
): string {
  const scratch = mkdtempSync(join(tmpdir(), 'patchsmith-git-data-'))
  const env = { GIT_INDEX_FILE: join(scratch, 'index') }
  try {
    git(['read-tree', base], { env })
    const all = extra
      ? [...entries, { path: TAMPERED, mode: '100644', content: 'not approved\n' }]
      : entries
    // --index-info: a bare repository has no work tree for --force-remove; mode 0 removes.
    const lines = all.map((entry) => {
      if (entry.sha === null) return `0 ${ZERO}\t${entry.path}`
      const sha =
        entry.content !== undefined
          ? git(['hash-object', '-w', '--stdin'], { input: entry.content })
          : entry.sha
      return `${entry.mode} ${sha}\t${entry.path}`
    })
    git(['update-index', '--index-info'], { env, input: lines.map((line) => `${line}\n`).join('') })
    return git(['write-tree'], { env })
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * A ruleset that requires signed commits: origin's pre-receive hook refuses any pushed commit
 * GitHub did not make (sign), with GitHub's GH013 wording.
 */
export function requireSignedCommits(origin: string, repository = 'acme/widgets'): void {
  const hook = join(origin, 'hooks', 'pre-receive')
  writeFileSync(
    hook,
    `#!/bin/sh
zero=${ZERO}
while read old new ref; do
  [ "$new" = "$zero" ] && continue
  for commit in $(git rev-list "$new" --not --all); do
    if ! grep -qx "$commit" verified-commits 2>/dev/null; then
      echo "error: GH013: Repository rule violations found for $ref." >&2
      echo "Review all repository rules at https://github.com/${repository}/rules?ref=$ref" >&2
      echo "" >&2
      echo "- Commits must have verified signatures." >&2
      echo "  Found 1 violation:" >&2
      echo "" >&2
      echo "  $commit" >&2
      exit 1
    fi
  done
done
exit 0
`
  )
  chmodSync(hook, 0o755)
}
