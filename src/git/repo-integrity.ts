import { createHash } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'

const MAX_ENTRIES = 2_000

/** One watched entry as it was, enough to put it back. */
interface Entry {
  hash: string
  mode: number
  content?: Buffer
  link?: string
}

/**
 * Hashes of what turns a later git command into code execution: the repository's config,
 * hooks, info/ (attributes, excludes) and alternates, and the global and system git config.
 * Taken before the step that runs repository code and compared after it; any change stops the
 * run (`repo-tampered`) before a commit or push could run with the token present.
 */
export class RepoIntegrity {
  private constructor(
    private readonly targets: readonly string[],
    private readonly entries: ReadonlyMap<string, Entry>
  ) {}

  static async snapshot(
    repoDir: string,
    extraFiles: readonly string[] = []
  ): Promise<RepoIntegrity> {
    const targets = [...watchedPaths(repoDir), ...extraFiles]
    return new RepoIntegrity(targets, readAll(targets))
  }

  /** The watched entries that differ from the snapshot (added, removed or changed). */
  changes(): string[] {
    const now = readAll(this.targets)
    const changed = new Set<string>()
    for (const [path, entry] of now)
      if (this.entries.get(path)?.hash !== entry.hash) changed.add(path)
    for (const path of this.entries.keys()) if (!now.has(path)) changed.add(path)
    return [...changed].sort()
  }

  /** Puts every changed entry back as it was: the rollback's own git calls then run clean. */
  restore(): void {
    const changed = this.changes()
    // Deepest first, so a folder that validation added goes after its files.
    for (const path of [...changed].reverse()) {
      const before = this.entries.get(path)
      try {
        if (!before || !before.hash.startsWith('dir'))
          rmSync(path, { recursive: true, force: true })
        if (!before) continue
        if (before.link !== undefined) symlinkSync(before.link, path)
        else if (before.content !== undefined) {
          mkdirSync(dirname(path), { recursive: true })
          writeFileSync(path, before.content)
          chmodSync(path, before.mode & 0o7777)
        } else mkdirSync(path, { recursive: true })
      } catch {
        // best effort: the run stops with repo-tampered either way
      }
    }
  }

  /** Throws `repo-tampered` (after restoring what changed) when anything watched differs. */
  async assertUnchanged(): Promise<void> {
    const changed = this.changes()
    if (changed.length === 0) return
    this.restore()
    throw new SecurityViolationError(
      `Validation changed git's configuration or hooks (${changed.slice(0, 5).join(', ')}); ` +
        'nothing is committed or pushed after that [rule repo-tampered].',
      { rule: 'repo-tampered', stage: 'validation', changed: changed.slice(0, 20) }
    )
  }
}

/** The repository's git folder and, for a linked worktree, the common one it shares. */
export function gitDirs(repoDir: string): string[] {
  const gitDir = resolveGitDir(repoDir)
  const dirs = [gitDir]
  const common = join(gitDir, 'commondir')
  if (existsSync(common)) dirs.push(resolve(gitDir, readFileSync(common, 'utf8').trim()))
  return dirs
}

function watchedPaths(repoDir: string): string[] {
  const dirs = gitDirs(repoDir)
  const home = process.env.HOME || homedir()
  const xdg = process.env.XDG_CONFIG_HOME || join(home, '.config')
  return [
    ...dirs.flatMap((dir) =>
      [
        'config',
        'config.worktree',
        'hooks',
        'info',
        'objects/info/alternates',
        'objects/info/http-alternates'
      ].map((name) => join(dir, name))
    ),
    join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
    join(xdg, 'git', 'attributes'),
    '/etc/gitconfig',
    ...(process.env.GIT_CONFIG_GLOBAL ? [process.env.GIT_CONFIG_GLOBAL] : [])
  ]
}

/** `.git` as a folder, or the folder a `.git` file (worktree, submodule) points to. */
function resolveGitDir(repoDir: string): string {
  const dotGit = join(repoDir, '.git')
  try {
    if (statSync(dotGit).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim()
      if (pointer) return isAbsolute(pointer) ? pointer : resolve(repoDir, pointer)
    }
  } catch {
    // no .git here: the snapshot then watches only the global files
  }
  return dotGit
}

function readAll(targets: readonly string[]): Map<string, Entry> {
  const entries = new Map<string, Entry>()
  for (const target of targets) walk(target, entries)
  return entries
}

function walk(path: string, entries: Map<string, Entry>): void {
  if (entries.size >= MAX_ENTRIES) {
    entries.set(`${path} (too many entries)`, { hash: 'limit', mode: 0 })
    return
  }
  let stat
  try {
    stat = lstatSync(path)
  } catch {
    return
  }
  const kind = stat.mode.toString(8)
  const mode = stat.mode
  if (stat.isSymbolicLink()) {
    const link = readlinkSync(path)
    entries.set(path, { hash: `link ${kind} ${link}`, mode, link })
  } else if (stat.isDirectory()) {
    entries.set(path, { hash: `dir ${kind}`, mode })
    for (const name of readdirSync(path).sort()) walk(join(path, name), entries)
  } else if (stat.isFile()) {
    const content = readFileSync(path)
    const digest = createHash('sha256').update(content).digest('hex')
    entries.set(path, { hash: `file ${kind} ${digest}`, mode, content })
  } else {
    entries.set(path, { hash: `other ${kind}`, mode })
  }
}
