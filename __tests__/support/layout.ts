import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative } from 'node:path'

/*
 * The rules of the source layout (docs: shared DESIGN.md "Layout"), read from the import
 * statements of src/**\/*.ts as text: arrows point down the floors, no circle between folders,
 * the leaves (contract, the run's own things) import nothing of src/, the split git folders and
 * the run's folder keep their faces and short files, no folder outgrows the rest.
 */

/** The floors, top first: an import may only point to a later one. */
export const FLOORS = [
  'modes',
  'engine',
  'agent',
  'change',
  'run-state',
  'git',
  'sandbox',
  'contract',
  'run'
]
/** Folders at the bottom that import no other part of src/: everything may import them. */
export const LEAVES = ['contract', 'run']
/** Folders that expose their face (index.ts) to every importer outside them. */
export const FACED = ['git', 'change', 'run-state', 'run']
/** Folders the modes must not reach: they go through the engine's and the change's faces. */
export const NOT_FROM_MODES = ['git', 'run-state']
export const MAX_LINES = 300
export const MAX_SHARE = 0.15

/** Every .ts file under `root`/src, by path relative to `root` (posix), with its text. */
export function sourceFiles(root: string): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts'))
        files.set(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'))
    }
  }
  walk(join(root, 'src'))
  return files
}

// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`, relative only.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"](\.[^'"]+)['"]|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g

export interface Arrow {
  from: string
  to: string
}

/** The relative imports of each file, resolved to the file they name (.js written for .ts). */
export function arrows(files: ReadonlyMap<string, string>): Arrow[] {
  const found: Arrow[] = []
  for (const [from, text] of files) {
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3]!
      const to = posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.js$/, '.ts')
      found.push({ from, to })
    }
  }
  return found
}

/** The folder right under src/ a file is in, or the file itself for src/*.ts. */
export function folderOf(path: string): string {
  return path.split('/')[1]!
}

function lines(text: string): number {
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

/** Every way `files` breaks the layout, as sentences; none: it holds. */
export function layoutProblems(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = []
  const edges = new Map<string, Set<string>>()
  for (const { from, to } of arrows(files)) {
    const a = folderOf(from)
    const b = folderOf(to)
    if (a === b) continue
    if (!edges.has(a)) edges.set(a, new Set())
    edges.get(a)!.add(b)
    const [up, down] = [FLOORS.indexOf(a), FLOORS.indexOf(b)]
    if (up >= 0 && down >= 0 && down < up) problems.push(`upward import: ${from} -> ${to}`)
    if (LEAVES.includes(a))
      problems.push(`a leaf (${a}) imports another part of src/: ${from} -> ${to}`)
    if (a === 'modes' && NOT_FROM_MODES.includes(b))
      problems.push(`a mode reaches into ${b}: ${from} -> ${to}`)
    if (FACED.includes(b) && to !== `src/${b}/index.ts`)
      problems.push(`past ${b}'s face (index.ts): ${from} -> ${to}`)
  }
  problems.push(...folderCircles(edges))
  const total = [...files.values()].reduce((sum, text) => sum + lines(text), 0)
  const byFolder = new Map<string, number>()
  for (const [path, text] of files) {
    const folder = folderOf(path)
    if (path.split('/').length > 2) byFolder.set(folder, (byFolder.get(folder) ?? 0) + lines(text))
    if (FACED.includes(folder) && path.split('/').length > 2 && lines(text) > MAX_LINES)
      problems.push(`${path} has ${lines(text)} lines, over ${MAX_LINES}`)
  }
  for (const [folder, count] of byFolder)
    if (count > total * MAX_SHARE)
      problems.push(
        `src/${folder}/ holds ${count} of ${total} lines (${((100 * count) / total).toFixed(1)} %), over ${MAX_SHARE * 100} %`
      )
  return problems
}

/** Each set of folders that import one another in a circle (Tarjan's components), once. */
function folderCircles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const circles: string[] = []
  const connect = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) !== index.get(node)) return
    const part: string[] = []
    let top: string
    do {
      top = stack.pop()!
      part.push(top)
    } while (top !== node)
    if (part.length > 1) circles.push(`import circle between folders: ${part.sort().join(', ')}`)
  }
  for (const node of edges.keys()) if (!index.has(node)) connect(node)
  return circles
}

/** The checkout this file is in. */
export const REPO_ROOT = dirname(dirname(import.meta.dirname))
