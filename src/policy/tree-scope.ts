import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { WORKTREE_SCAN, nulFields } from '../git/index.js'
import type { GitRunner } from './repo-paths.js'
import { latin1, text, type Stamps } from './tree-find.js'
import { type Folder } from './tree-listing.js'

/**
 * Where validation can have changed anything, from the snapshot's listing of what it changed,
 * so git need not look at the rest of a large tree (each git pass over it stats every tracked
 * file again). An entry validation created, wrote, chmodded, linked or renamed has a ctime past
 * the mark and is listed; one it deleted changed the ctime of the folder that held it, so that
 * folder is listed, or is the root, or went too (its nearest folder still there is listed, or is
 * the root). Only the root is never listed: what was directly in it, and the root's folders that
 * are gone, are asked about by name.
 */

/** More pathspecs (or bytes of them) than this: git looks at the whole tree, as it would. */
const MOST_PATHSPECS = 1000
const MOST_PATHSPEC_BYTES = 64 * 1024

/**
 * `paths` (latin1 of bytes) as repository paths for git, what lies under another one left out;
 * undefined when there are too many, or a name is not UTF-8.
 */
export function literalPathspecs(paths: Iterable<string>): string[] | undefined {
  const kept = new Set<string>()
  const specs: string[] = []
  let bytes = 0
  for (const path of [...new Set(paths)].sort((a, b) => a.length - b.length)) {
    if (ancestors(path).some((folder) => kept.has(folder))) continue
    const name = text(path)
    // A name that is not UTF-8 cannot be handed to git as an argument.
    if (name === undefined || name === '') return undefined
    kept.add(path)
    specs.push(name)
    bytes += Buffer.byteLength(name) + 1
    if (specs.length > MOST_PATHSPECS || bytes > MOST_PATHSPEC_BYTES) return undefined
  }
  return specs
}

function ancestors(path: string): string[] {
  const found: string[] = []
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) found.push(path.slice(0, i))
  return found
}

/**
 * The paths (files or whole folders) outside which validation changed nothing git would report: the
 * entries it changed, the root's folders that are gone and the root's tracked files it
 * deleted; undefined when git must look at the whole tree (too many, or a name not UTF-8).
 */
export async function changedScope(
  git: GitRunner,
  root: string,
  folders: ReadonlyMap<string, Folder>,
  changed: Stamps
): Promise<string[] | undefined> {
  const gone = goneFromRoot(root, folders)
  const deleted = gone && (await deletedUnder(git, gone))
  return deleted && literalPathspecs([...changed.keys(), ...gone, ...deleted])
}

/**
 * The tracked files missing from the work tree (latin1 of their bytes) that lie under `under`
 * (latin1), directly in the root, or in a folder of the root's that is gone; the whole tree's
 * when they cannot be named so.
 */
export async function deletedTracked(
  git: GitRunner,
  root: string,
  folders: ReadonlyMap<string, Folder>,
  under: Iterable<string>
): Promise<string[]> {
  const gone = goneFromRoot(root, folders)
  const deleted = gone && (await deletedUnder(git, [...gone, ...under]))
  if (deleted) return deleted
  const out = await git.exec(['ls-files', '--deleted', '-z'], { allowFailure: true })
  return nulFields(out.stdout).map(latin1)
}

/**
 * `git diff-files` stats only the index entries its pathspecs match (`ls-files --deleted`
 * stats every entry, whatever it is asked); undefined when the paths cannot be named or git
 * fails.
 */
async function deletedUnder(git: GitRunner, under: readonly string[]) {
  const specs = literalPathspecs(under)
  if (!specs) return undefined
  const args = ['diff-files', '--name-only', '--diff-filter=D', '-z', '--']
  // Whatever was directly in the root (glob: `*` never crosses a slash).
  const literal = specs.map((name) => `:(literal)${name}`)
  const out = await git.exec([...WORKTREE_SCAN, ...args, ':(top,glob)*', ...literal], {
    allowFailure: true
  })
  return out.exitCode === 0 ? nulFields(out.stdout).map(latin1) : undefined
}

/**
 * The root's folders that were there before and are not now (or not the same folder); undefined
 * when one of them has a name that is not UTF-8.
 */
function goneFromRoot(root: string, folders: ReadonlyMap<string, Folder>): string[] | undefined {
  const gone: string[] = []
  for (const [path, folder] of folders) {
    if (path.includes('/')) continue
    const name = text(path)
    if (name === undefined) return undefined
    const now = lstatSync(join(root, name), { bigint: true, throwIfNoEntry: false })
    if (!now?.isDirectory() || String(now.ino) !== folder.inode) gone.push(path)
  }
  return gone
}
