import { createHash } from 'node:crypto'
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { SecurityViolationError } from '../contract/index.js'
import { configIncludes } from './config-includes.js'
import { gitDirs } from './git-dirs.js'

export { gitDirs } from './git-dirs.js'

const MAX_ENTRIES = 2_000

/** One watched entry as it was, enough to put it back. */
interface Entry {
  hash: string
  mode: number
  content?: Buffer
  link?: string
}

/**
 * Hashes of what turns a later git command into code execution: the repository's config and
 * every file it includes (a tracked `.gitconfig` too), hooks, info/ (attributes, excludes) and
 * alternates, and the global and system git config; with `refs`, also HEAD, refs and
 * packed-refs (around hooks, which may write them).
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
    extraFiles: readonly string[] = [],
    options: { refs?: boolean } = {}
  ): Promise<RepoIntegrity> {
    const targets = [...watchedPaths(repoDir, options.refs), ...extraFiles]
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

function watchedPaths(repoDir: string, refs = false): string[] {
  const dirs = gitDirs(repoDir)
  const names = [
    'config',
    'config.worktree',
    'hooks',
    'info',
    'commondir',
    'objects/info/alternates',
    'objects/info/http-alternates',
    ...(refs ? ['HEAD', 'refs', 'packed-refs', 'reftable'] : [])
  ]
  const home = process.env.HOME || homedir()
  const xdg = process.env.XDG_CONFIG_HOME || join(home, '.config')
  return [
    ...dirs.flatMap((dir) => names.map((name) => join(dir, name))),
    ...configIncludes(repoDir),
    join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
    join(xdg, 'git', 'attributes'),
    '/etc/gitconfig',
    ...(process.env.GIT_CONFIG_GLOBAL ? [process.env.GIT_CONFIG_GLOBAL] : [])
  ]
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
