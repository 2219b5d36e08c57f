import { createHash } from 'node:crypto'
import {
  InvalidInputError,
  PermissionDeniedError,
  SecurityViolationError
} from '../contract/index.js'
import type { BranchPublisher, Git, PublishRequest } from '../git/index.js'
import type { GitHubClientOptions } from './client.js'
import { GitData, type TreeEntry, type TreeMode } from './git-data.js'

interface VerifiedCommitsOptions {
  token?: string
  /** `owner/repo` */
  repository?: string
  client?: GitHubClientOptions
  info?: (message: string) => void
}

/** A commit as git stores it: what must come back from GitHub unchanged. */
interface StoredCommit {
  sha: string
  tree: string
  parents: string[]
  message: string
}

/**
 * commit-signing: github. Each approved local commit is made again through the Git Data API
 * (one tree on its parent's tree, one commit with the exact message; then one ref request for
 * the branch), so GitHub signs it. The API's tree must be the local tree; after the ref moved,
 * the branch is fetched back and every commit's tree, parent and message compared byte for
 * byte. Anything else puts the ref on origin back and refuses the run. Requests: 2 per commit
 * and 1 for the branch (3 for the usual single commit), and 1 more to put it back on a refusal.
 */
export function verifiedCommits(options: VerifiedCommitsOptions): BranchPublisher & {
  readonly requests: number
} {
  const { token, repository } = options
  if (!token || !repository || !/^[^/\s]+\/[^/\s]+$/.test(repository))
    throw new PermissionDeniedError(
      'commit-signing: github makes the commit through the GitHub API: it needs github-token (contents: write) and the repository (GITHUB_REPOSITORY, owner/repo).',
      { rule: 'signing-needs-token' }
    )
  const api = new GitData(token, repository, options.client)
  return {
    get requests() {
      return api.requests
    },
    async publish(git, request, record) {
      const locals = await commitsToPublish(git, request)
      const made: string[] = []
      let parent = request.base
      let verified = true
      for (const local of locals) {
        const entries = await changedEntries(git, local.parents[0]!, local.sha)
        const baseTree = await treeOf(git, local.parents[0]!)
        const tree = await api.createTree(baseTree, entries, request.branch)
        if (tree !== local.tree) throw mismatch(request.branch, `tree ${tree}`, local)
        const commit = await api.createCommit(local.message, tree, parent, request.branch)
        verified &&= commit.verified
        made.push(commit.sha)
        parent = commit.sha
      }
      record(made)
      await setBranchOrReadBack(api, git, request, parent, options.info)
      try {
        await git.fetchBranch('origin', request.branch, request.fetchEnv)
        await assertPublishedAsApproved(git, request, locals, made)
      } catch (error) {
        await api.restoreBranch(request.branch, request.remoteTip).catch(() => undefined)
        throw error
      }
      const marked = verified ? 'Verified' : 'not marked Verified by GitHub'
      options.info?.(
        `Made ${made.join(', ')} through the GitHub API (${marked}), the approved tree and message`
      )
      return new Map(locals.map((local, i) => [local.sha, made[i]!]))
    }
  }
}

/**
 * Creates or moves the branch. GitHub may have done it while its answer was lost (a 502, a
 * time-out; the client's retry then meets "already exists"): the ref, read back from origin,
 * decides. Holding our commit, the branch is ours and the run goes on; else the error stands.
 */
async function setBranchOrReadBack(
  api: GitData,
  git: Git,
  request: PublishRequest,
  sha: string,
  info?: (message: string) => void
): Promise<void> {
  try {
    await api.setBranch(request.branch, sha, request.remoteTip)
  } catch (error) {
    const tip = await git
      .remoteHeads('origin', request.branch, request.fetchEnv)
      .then((heads) => heads.tip)
      .catch(() => undefined)
    if (tip !== sha) throw error
    info?.(
      `GitHub's answer to the ref request for "${request.branch}" was lost (${lostHow(error)}), but origin holds ${sha}: going on`
    )
  }
}

/** How the answer was lost: the client's time-out, a retry that found the ref, or a status. */
function lostHow(error: unknown): string {
  const details = (error as { details?: Record<string, unknown> }).details
  if (typeof details?.timeout_ms === 'number')
    return `no answer within ${details.timeout_ms / 1000} s`
  if (details?.rule === 'push-rejected-conflict') return 'the retry found it already made'
  const status = details?.status
  return typeof status === 'number' ? `status ${status}` : 'no answer'
}

async function commitsToPublish(git: Git, request: PublishRequest): Promise<StoredCommit[]> {
  const range = `${request.base}..${request.tip}`
  const out = await git.exec(['rev-list', '--reverse', '--topo-order', range])
  const shas = out.stdout.split('\n').filter(Boolean)
  const commits = await Promise.all(shas.map((sha) => readCommit(git, sha)))
  let parent = request.base
  for (const commit of commits) {
    // A straight line on the base: what the API makes again is exactly these commits.
    if (commit.parents.length !== 1 || commit.parents[0] !== parent)
      throw new InvalidInputError(
        `commit-signing: github publishes a straight line of commits on ${request.base}; ${commit.sha} is not.`,
        { branch: request.branch, rule: 'signed-commit-failed' }
      )
    parent = commit.sha
  }
  return commits
}

async function readCommit(git: Git, sha: string): Promise<StoredCommit> {
  const text = (await git.exec(['cat-file', 'commit', sha])).stdout
  const end = text.indexOf('\n\n')
  const header = end < 0 ? text : text.slice(0, end)
  const field = (name: string) =>
    header
      .split('\n')
      .filter((line) => line.startsWith(`${name} `))
      .map((line) => line.slice(name.length + 1))
  return {
    sha,
    tree: field('tree')[0] ?? '',
    parents: field('parent'),
    message: end < 0 ? '' : text.slice(end + 2)
  }
}

async function treeOf(git: Git, commit: string): Promise<string> {
  return (await git.exec(['rev-parse', `${commit}^{tree}`])).stdout.trim()
}

/** What `commit` changes against `parent`: each file's mode and content, or its deletion. */
async function changedEntries(git: Git, parent: string, commit: string): Promise<TreeEntry[]> {
  const raw = await git.exec(['diff-tree', '-r', '-z', '--no-renames', parent, commit])
  const fields = raw.stdout.split('\0')
  const entries: TreeEntry[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, , sha, status] = fields[i]!.replace(/^:/, '').split(' ') as [
      TreeMode,
      TreeMode,
      string,
      string,
      string
    ]
    const path = fields[i + 1]!
    if (status === 'D') entries.push({ path, mode: oldMode, type: 'blob', sha: null })
    else if (newMode === '160000') entries.push({ path, mode: newMode, type: 'commit', sha })
    else
      entries.push({ path, mode: newMode, type: 'blob', content: await textBlob(git, sha, path) })
  }
  return entries
}

/** A blob's content as text, only when that text is exactly its bytes (its SHA says so). */
async function textBlob(git: Git, sha: string, path: string): Promise<string> {
  const content = (await git.exec(['cat-file', 'blob', sha])).stdout
  const bytes = Buffer.from(content, 'utf8')
  const header = Buffer.from(`blob ${bytes.length}\0`)
  const again = createHash('sha1').update(header).update(bytes).digest('hex')
  if (again !== sha)
    throw new InvalidInputError(
      `commit-signing: github sends text files only, and ${JSON.stringify(path)} is not UTF-8 text; commit it with local git (leave commit-signing unset).`,
      { path, rule: 'not-text' }
    )
  return content
}

/** The branch as fetched back: the published commits, each the approved tree and message. */
async function assertPublishedAsApproved(
  git: Git,
  request: PublishRequest,
  locals: readonly StoredCommit[],
  made: readonly string[]
): Promise<void> {
  const fetched = (await git.exec(['rev-parse', 'FETCH_HEAD'])).stdout.trim()
  if (fetched !== made.at(-1))
    throw mismatch(request.branch, `branch tip ${fetched}`, locals.at(-1)!)
  let parent = request.base
  for (const [i, local] of locals.entries()) {
    const remote = await readCommit(git, made[i]!)
    if (remote.tree !== local.tree) throw mismatch(request.branch, `tree ${remote.tree}`, local)
    if (remote.message !== local.message)
      throw mismatch(request.branch, 'a different message', local)
    if (remote.parents.length !== 1 || remote.parents[0] !== parent)
      throw mismatch(request.branch, `parents ${remote.parents.join(' ')}`, local)
    parent = remote.sha
  }
}

function mismatch(branch: string, found: string, local: StoredCommit): SecurityViolationError {
  return new SecurityViolationError(
    `The commit GitHub made for "${branch}" is not the approved one: it has ${found}, the approved commit ${local.sha} has tree ${local.tree} and its message. The branch on origin was put back; nothing was pushed.`,
    { branch, approved_tree: local.tree, rule: 'signed-commit-mismatch' }
  )
}
