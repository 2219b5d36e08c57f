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

/** The untracked files that are not ignored. */
export async function untrackedPaths(git: GitExec): Promise<string[]> {
  return nulFields((await git.exec(['ls-files', '--others', '--exclude-standard', '-z'])).stdout)
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
  if (changed.length > 0)
    await git.exec(['--literal-pathspecs', 'checkout', '--quiet', '--', ...changed])
  if (created.length > 0)
    await git.exec(['--literal-pathspecs', 'clean', '-f', '-q', '--', ...created])
}

export function nulFields(text: string): string[] {
  return text.split('\0').filter((field) => field.length > 0)
}
