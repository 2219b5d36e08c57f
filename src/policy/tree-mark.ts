import { lstatSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Waiting for the file system's clock to move past the mark, at most (a coarse one: 1 s). */
const LONGEST_TICK_MS = 2500

/**
 * A fresh file's mtime as the mark, once the file system's clock has moved past it: an entry
 * changed in the same tick as the mark would have a ctime no later than it. The mark is made on
 * the tree's own file system (in `.git`, which the listing never enters), whose times may be
 * whole seconds (ext4 with small inodes, NFS): a mark with finer times elsewhere would be later
 * than the truncated ctime of a change made after it. Where `.git` is not a folder there (a
 * linked worktree), the mark is put just before a whole second the clock has passed.
 */
export async function timeMark(root: string): Promise<string> {
  const onTree = gitFolderOnTree(root)
  const dir = mkdtempSync(join(onTree ?? tmpdir(), 'patchsmith-mark-'))
  const mark = join(dir, 'mark')
  writeFileSync(mark, '')
  const marked = statSync(mark, { bigint: true }).mtimeNs
  // Elsewhere, past the next whole second, and the mark just before it.
  const past = onTree ? marked : (marked / SECOND + 1n) * SECOND
  const probe = join(dir, 'probe')
  const started = Date.now()
  for (;;) {
    writeFileSync(probe, '')
    const ctime = statSync(probe, { bigint: true }).ctimeNs
    if (onTree ? ctime > past : ctime >= past) break
    if (Date.now() - started > LONGEST_TICK_MS) break
    await new Promise((resolve) => setTimeout(resolve, onTree ? 1 : 10))
  }
  if (!onTree) {
    const before = Number(past - SECOND / 1000n) / 1e9
    utimesSync(mark, before, before)
  }
  return mark
}

const SECOND = 1_000_000_000n

/** The work tree's `.git` when it is a folder on the tree's own file system. */
function gitFolderOnTree(root: string): string | undefined {
  const git = join(root, '.git')
  const stat = lstatSync(git, { throwIfNoEntry: false })
  return stat?.isDirectory() && stat.dev === lstatSync(root).dev ? git : undefined
}
