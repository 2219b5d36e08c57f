export interface FileStat {
  path: string
  status: 'added' | 'deleted' | 'modified'
  added: number
  removed: number
}

/** Per-file line counts of a git-style unified diff (what `git diff --numstat` would say). */
export function diffStat(diff: string): FileStat[] {
  const files: FileStat[] = []
  let current: FileStat | undefined
  let inHunk = false
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const rest = line.slice('diff --git a/'.length)
      current = {
        path: rest.slice(0, (rest.length - ' b/'.length) / 2),
        status: 'modified',
        added: 0,
        removed: 0
      }
      files.push(current)
      inHunk = false
    } else if (!current) {
      continue
    } else if (!inHunk && line.startsWith('new file mode')) {
      current.status = 'added'
    } else if (!inHunk && line.startsWith('deleted file mode')) {
      current.status = 'deleted'
    } else if (line.startsWith('@@ ')) {
      inHunk = true
    } else if (inHunk && line.startsWith('+')) {
      current.added++
    } else if (inHunk && line.startsWith('-')) {
      current.removed++
    }
  }
  return files
}

/** `2 files changed, 3 insertions(+), 1 deletion(-)`, as git says it. */
export function statLine(files: readonly FileStat[]): string {
  const added = files.reduce((sum, file) => sum + file.added, 0)
  const removed = files.reduce((sum, file) => sum + file.removed, 0)
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  const parts = [`${plural(files.length, 'file')} changed`]
  if (added > 0 || removed === 0) parts.push(`${plural(added, 'insertion')}(+)`)
  if (removed > 0) parts.push(`${plural(removed, 'deletion')}(-)`)
  return parts.join(', ')
}
