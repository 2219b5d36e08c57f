import { GitCommandError, type Git } from '../git/index.js'

/**
 * The listed files whose text holds any of the needles, as plain case-sensitive substrings:
 * `git grep` reads the work tree in its own threads, off Node's main thread. A superset of what
 * the ranking scores on content (a definition or a mention holds the identifier, a phrase
 * matches itself); binary, large and symlinked files are dropped when the ranking reads them.
 */
export async function filesContaining(git: Git, needles: readonly string[]): Promise<Set<string>> {
  if (needles.length === 0) return new Set()
  const patterns = needles.flatMap((needle) => ['-e', needle])
  const args = ['grep', '-l', '-z', '-F', '--untracked', '--no-color', ...patterns, '--']
  const out = await git.exec(args, { allowFailure: true })
  // Exit 1 is "no match"; anything else is a search that failed.
  if (out.exitCode > 1) throw new GitCommandError(args, out)
  return new Set(out.stdout.split('\0').filter((path) => path.length > 0))
}
