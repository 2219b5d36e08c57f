import { WORKTREE_SCAN } from './status.js'

/** Anything that runs git with these arguments: the Git class, or a runner that wraps it. */
interface GitExec {
  exec(args: readonly string[]): Promise<{ stdout: string }>
}

/**
 * Tracked files whose work-tree content differs from the index (`git diff --name-only`; no
 * external diff or textconv: repository config must not run).
 */
export async function unstagedPaths(git: GitExec): Promise<string[]> {
  const out = await git.exec([
    'diff',
    '--name-only',
    '-z',
    '--no-ext-diff',
    '--no-textconv',
    '--ignore-submodules=all'
  ])
  return nulFields(out.stdout)
}

/** The untracked files that are not ignored, exactly (WORKTREE_SCAN). */
export async function untrackedPaths(git: GitExec): Promise<string[]> {
  const out = await git.exec([...WORKTREE_SCAN, 'ls-files', '--others', '--exclude-standard', '-z'])
  return nulFields(out.stdout)
}

/**
 * The work tree put back to what is staged: `changed` tracked files checked out from the index,
 * `created` untracked files removed. What a pull-request step after `push: false` picks up is
 * then exactly the commit.
 */
export async function restoreWorkTree(
  git: GitExec,
  changed: readonly string[],
  created: readonly string[]
): Promise<void> {
  for (const paths of batches(changed))
    await git.exec(['--literal-pathspecs', 'checkout', '--quiet', '--', ...paths])
  for (const paths of batches(created))
    await git.exec(['--literal-pathspecs', 'clean', '-f', '-q', '--', ...paths])
}

/** Paths in runs that stay well under the system's limit on a command line's length. */
function* batches(paths: readonly string[], maxBytes = 128 * 1024): Generator<string[]> {
  let batch: string[] = []
  let bytes = 0
  for (const path of paths) {
    const size = Buffer.byteLength(path) + 1
    if (batch.length > 0 && bytes + size > maxBytes) {
      yield batch
      batch = []
      bytes = 0
    }
    batch.push(path)
    bytes += size
  }
  if (batch.length > 0) yield batch
}

export function nulFields(text: string): string[] {
  return text.split('\0').filter((field) => field.length > 0)
}
