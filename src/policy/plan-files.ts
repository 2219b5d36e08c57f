import { InvalidInputError, type RefusalRule } from '../contract/index.js'
import { printable } from './path-policy.js'
import type { GitRunner } from './repo-paths.js'
import type { ObjectReader, TreeEntry } from '../git/index.js'

/** What the checks need of git: commands, and the run's object reader for HEAD's trees. */
type PlanGit = GitRunner & { readonly objects: Pick<ObjectReader, 'tree'> }

interface PlannedFile {
  path: string
  operation: 'CREATE' | 'MODIFY' | 'DELETE'
}

const LFS_POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n/
// Git's own test for binary content: a NUL byte in the first 8000 bytes.
const BINARY_PROBE = 8000

/**
 * Files a model cannot edit as text, refused before any model call (a paid call could only
 * end in a broken file or a refusal): a Git LFS pointer or a file git treats as binary, a path
 * inside a submodule (the superproject records a commit there, not files), and two paths that
 * differ only in letter case or Unicode normalisation, with each other or with a file the
 * repository has (such a branch cannot be checked out on macOS or Windows).
 */
export async function assertPlainFiles(
  changes: readonly PlannedFile[],
  base: ReadonlyMap<string, string | null>,
  git: PlanGit
): Promise<void> {
  const modified = changes.filter((change) => change.operation === 'MODIFY')
  const [names, binaryByAttributes] = await Promise.all([
    namesAlong(
      git,
      changes.map((change) => change.path)
    ),
    binaryAttributes(
      git,
      modified.map((change) => change.path)
    )
  ])
  const gitlinks = names.filter((entry) => entry.startsWith('160000 ')).map(entryPath)
  const tracked = names.map(entryPath)
  for (const change of changes) {
    const submodule = gitlinks.find((link) => change.path.startsWith(`${link}/`))
    if (submodule)
      refuse(change.path, 'in-submodule', `it lies inside the submodule ${printable(submodule)}`)
  }
  const twin = twinPaths(
    changes.map((change) => change.path),
    tracked
  )
  if (twin)
    refuse(
      twin[0],
      'case-twin',
      `it differs from ${printable(twin[1])} only in letter case or Unicode normalisation; a branch with both cannot be checked out on macOS or Windows`
    )
  for (const { path } of modified) {
    const content = base.get(path) ?? ''
    if (LFS_POINTER.test(content))
      refuse(path, 'lfs-pointer', 'it is a Git LFS pointer; the file itself is not in the checkout')
    if (content.slice(0, BINARY_PROBE).includes('\0') || binaryByAttributes.has(path))
      refuse(path, 'binary-file', 'git treats it as binary, and edits are text')
  }
}

/** The first planned path with a twin among the others or the repository's paths (folders too). */
export function twinPaths(
  planned: readonly string[],
  existing: readonly string[]
): [string, string] | undefined {
  const seen = new Map<string, string>()
  const exact = new Set(existing.flatMap(prefixes))
  const note = (path: string) => {
    for (const prefix of prefixes(path)) {
      const key = foldKey(prefix)
      if (!seen.has(key)) seen.set(key, prefix)
    }
  }
  existing.forEach(note)
  for (const path of planned) {
    for (const prefix of prefixes(path)) {
      if (exact.has(prefix)) continue // the repository's own name (even if it has a twin already)
      const other = seen.get(foldKey(prefix))
      if (other !== undefined && other !== prefix) return [path, other]
    }
    note(path)
  }
  return undefined
}

/** Case-folded, in one Unicode normal form: how macOS and Windows file systems compare names. */
function foldKey(path: string): string {
  return path.normalize('NFC').toLowerCase().normalize('NFC')
}

/** `a/b/c.txt` → `a`, `a/b`, `a/b/c.txt`. */
function prefixes(path: string): string[] {
  const parts = path.split('/')
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'))
}

/**
 * HEAD's entries in the folders along the planned paths (the root and each planned path's
 * folders, not below): every name a planned path could be a case twin of, and every submodule
 * one could lie in. Read tree by tree through the run's object reader, so its cost follows the
 * plan, not the repository's size; listed as `ls-tree --full-tree HEAD -- . <folders>/` lists
 * them (`<mode> <type> <sha>\t<path>`, a folder along the paths replaced by its entries).
 */
export async function namesAlong(git: PlanGit, paths: readonly string[]): Promise<string[]> {
  const folders = new Set<string>()
  for (const path of paths) {
    const parts = path.split('/')
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'))
  }
  // No HEAD yet: nothing to be a twin of (the run is refused later for it).
  const root = await git.objects.tree('HEAD')
  const names: string[] = []
  const list = async (entries: readonly TreeEntry[], prefix: string): Promise<void> => {
    for (const entry of entries) {
      const path = `${prefix}${entry.name}`
      const inner = entry.type === 'tree' && folders.has(path)
      if (!inner) names.push(`${entry.mode} ${entry.type} ${entry.sha}\t${path}`)
      else {
        const inside = await git.objects.tree(entry.sha)
        if (!inside) throw new Error(`git cannot read the tree of ${printable(path)} at HEAD`)
        await list(inside, `${path}/`)
      }
    }
  }
  await list(root ?? [], '')
  return names
}

/** `<mode> <type> <sha>\t<path>` → path. */
function entryPath(entry: string): string {
  return entry.slice(entry.indexOf('\t') + 1)
}

/** Paths whose attributes make them binary to git: `binary`, `-diff` or `-text`, or LFS. */
async function binaryAttributes(git: GitRunner, paths: readonly string[]): Promise<Set<string>> {
  const binary = new Set<string>()
  if (paths.length === 0) return binary
  const out = await git.exec(['check-attr', '-z', 'binary', 'diff', 'text', 'filter', '--stdin'], {
    input: paths.join('\0') + '\0'
  })
  const fields = out.stdout.split('\0')
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [path, attribute, value] = [fields[i]!, fields[i + 1]!, fields[i + 2]!]
    const isBinary =
      (attribute === 'binary' && value === 'set') ||
      ((attribute === 'diff' || attribute === 'text') && value === 'unset') ||
      (attribute === 'filter' && value === 'lfs')
    if (isBinary) binary.add(path)
  }
  return binary
}

function refuse(path: string, rule: RefusalRule, reason: string): never {
  throw new InvalidInputError(
    `The plan cannot change "${printable(path)}": ${reason}. Leave it out of the plan, or change it by hand [rule ${rule}].`,
    { field: 'fix_plan.file_changes', path, rule }
  )
}
