import { createHash } from 'node:crypto'
import type { Git, TreeEntry } from '../git/index.js'

/** A path's new blob (its SHA), or null when it is deleted. */
export interface TreeChange {
  path: string
  blob: string | null
}

interface Entry {
  mode: string
  type: string
  sha: string
}

/**
 * The tree of `parent` with exactly these changes, reading only the folders on their paths
 * (through the run's object reader) and writing only the trees that change (one `mktree
 * --batch`): a small change costs the same in a repository of any size. A changed file keeps its mode when it was a blob
 * (new files are 100644). Undefined, so the caller builds the tree in a private index, for the
 * unusual cases: a path through a file or submodule, or a file where a folder or submodule is.
 */
export async function sparseTree(
  git: Git,
  parent: string,
  changes: readonly TreeChange[]
): Promise<string | undefined> {
  const folders = new Set([''])
  for (const { path } of changes) for (const folder of ancestors(path)) folders.add(folder)
  const trees = new Map([['', entryMap(await treeOf(git, parent))]])
  // Parents first: a folder's entry in its parent is replaced by the folder's own entries.
  for (const folder of [...folders].filter(Boolean).sort((a, b) => depth(a) - depth(b))) {
    const above = trees.get(dirname(folder))!
    const entry = above.get(basename(folder))
    // A path through a file or submodule: not a tree to descend into.
    if (entry && entry.type !== 'tree') return undefined
    above.delete(basename(folder))
    trees.set(folder, entry ? entryMap(await treeOf(git, entry.sha)) : new Map())
  }
  for (const { path, blob } of changes) {
    const tree = trees.get(dirname(path))!
    const old = tree.get(basename(path))
    if (old && old.type !== 'blob') return undefined
    if (folders.has(path)) return undefined
    if (blob === null) tree.delete(basename(path))
    else tree.set(basename(path), { mode: old?.mode ?? '100644', type: 'blob', sha: blob })
  }
  // Deepest first, so each tree's SHA is known before its parent's entry names it.
  const order = [...folders].sort((a, b) => depth(b) - depth(a))
  const written: { folder: string; sha: string; body: string }[] = []
  for (const folder of order) {
    const entries = trees.get(folder)!
    const sha = entries.size > 0 ? treeId(entries, parent.length) : undefined
    if (folder === '') {
      if (!sha) return undefined // an empty root: leave it to the private index
    } else if (sha) {
      trees.get(dirname(folder))!.set(basename(folder), { mode: '040000', type: 'tree', sha })
    } else {
      trees.get(dirname(folder))!.delete(basename(folder))
      continue
    }
    const body = [...entries].map(([name, e]) => `${e.mode} ${e.type} ${e.sha}\t${name}\0`).join('')
    written.push({ folder, sha: sha!, body })
  }
  const out = await git.exec(['mktree', '-z', '--batch'], {
    input: written.map((tree) => `${tree.body}\0`).join('')
  })
  const made = out.stdout.trim().split('\n')
  // git's own SHAs for the trees it wrote must be the ones their parents name.
  if (made.length !== written.length || written.some((tree, i) => tree.sha !== made[i]))
    throw new Error(`mktree wrote other trees than computed: ${made.join(' ')}`)
  return made[made.length - 1]
}

/** A tree object's SHA as git computes it (entries in git's order: a folder sorts as "name/"). */
function treeId(entries: ReadonlyMap<string, Entry>, hexLength: number): string {
  const key = (name: string, e: Entry) => Buffer.from(e.type === 'tree' ? `${name}/` : name)
  const sorted = [...entries].sort(([a, x], [b, y]) => Buffer.compare(key(a, x), key(b, y)))
  const body = Buffer.concat(
    sorted.map(([name, e]) =>
      Buffer.concat([
        Buffer.from(`${e.mode.replace(/^0+/, '')} ${name}\0`),
        Buffer.from(e.sha, 'hex')
      ])
    )
  )
  return createHash(hexLength === 64 ? 'sha256' : 'sha1')
    .update(`tree ${body.length}\0`)
    .update(body)
    .digest('hex')
}

/** `a/b/c.txt` → `a`, `a/b`. */
function ancestors(path: string): string[] {
  const parts = path.split('/').slice(0, -1)
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'))
}

/** A tree's entries (a commit's root tree); one git cannot read is a broken repository. */
async function treeOf(git: Git, id: string): Promise<TreeEntry[]> {
  const entries = await git.objects.tree(id)
  if (!entries) throw new Error(`git has no tree ${id} to build on`)
  return entries
}

function entryMap(entries: readonly TreeEntry[]): Map<string, Entry> {
  return new Map(entries.map(({ name, mode, type, sha }) => [name, { mode, type, sha }]))
}

function dirname(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash < 0 ? '' : path.slice(0, slash)
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

function depth(folder: string): number {
  return folder === '' ? 0 : folder.split('/').length
}
