import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'

/** What of `/` the jail shows as it is (read-only): the system, never a host's data or sockets. */
const SYSTEM = new Set(['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'opt'])
/** Handled by each backend (procfs, a private /dev, sysfs) or by the plan (a private /tmp). */
const OWN_MOUNTS = new Set(['proc', 'dev', 'sys', 'tmp'])
/** Read-only system trees below a hidden folder: Nix's store holds the programs on PATH. */
export const SYSTEM_TREES = ['/nix/store']

/** The system folders at `/` that are folders (not links into /usr): the jail shows them. */
export function systemFolders(): string[] {
  return [...SYSTEM]
    .map((name) => `/${name}`)
    .filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isDirectory())
}

/**
 * Everything at `/` outside the system folders: replaced by an empty folder (a file by an empty
 * file). An allowlist, not a list of sockets: a socket renamed, hard-linked or bound in another
 * network namespace under /var, /run, /home or /srv is gone with its folder. Symbolic links are
 * left, since they lead into the system folders or into what is hidden here.
 */
export function rootEntries(): string[] {
  let names: string[]
  try {
    names = readdirSync('/')
  } catch {
    return []
  }
  return names
    .filter((name) => !SYSTEM.has(name) && !OWN_MOUNTS.has(name))
    .map((name) => `/${name}`)
    .filter((path) => {
      const stat = lstatSync(path, { throwIfNoEntry: false })
      return !!stat && !stat.isSymbolicLink()
    })
}

/**
 * The host's secrets inside the shown system folders: password hashes, SSH host keys, TLS private
 * keys. As root the command keeps dac_override (to write a work tree another user owns), so file
 * modes do not hide them; they are covered (a file by an empty one, a folder by an empty folder).
 */
const HOST_SECRETS = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/security/opasswd',
  '/etc/ssh',
  '/etc/ssl/private',
  '/etc/pki/tls/private'
]

export function hostSecrets(): string[] {
  return HOST_SECRETS.filter((path) => {
    const stat = lstatSync(path, { throwIfNoEntry: false })
    return !!stat && !stat.isSymbolicLink()
  })
}

/**
 * Git folders of the repositories that hold `workTree` (a repository inside another checkout,
 * a submodule whose `.git` file points into the parent's `.git/modules`): their config must be
 * sanitized wherever the jail can see it, though the command's git never uses them.
 */
export function enclosingGitDirs(workTree: string): string[] {
  const found: string[] = []
  for (let dir = dirname(workTree); ; dir = dirname(dir)) {
    found.push(...(gitFoldersAt(dir) ?? []))
    if (dir === dirname(dir)) break
  }
  return [...new Set(found)]
}

/**
 * The git folder of the repository at `dir` (`.git`, or where a `.git` file of a worktree or
 * submodule points) and, for a linked worktree, the common one it shares; undefined when no
 * repository is there. Here rather than in git/ because the jail's layout needs it and git/
 * already builds on this folder.
 */
export function gitFoldersAt(dir: string): string[] | undefined {
  const gitDir = resolveGitDir(dir, join(dir, '.git'))
  if (!gitDir) return undefined
  const common = join(gitDir, 'commondir')
  return existsSync(common)
    ? [gitDir, resolve(gitDir, readFileSync(common, 'utf8').trim())]
    : [gitDir]
}

function resolveGitDir(dir: string, dotGit: string): string | undefined {
  try {
    const stat = statSync(dotGit)
    // A `.git` link to the folder elsewhere: the folder where it is (the jail binds it there; a
    // bind onto the link's path would follow it, to where the jail may show nothing).
    if (stat.isDirectory()) return linkTarget(dotGit)
    if (!stat.isFile()) return undefined
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim()
    if (!pointer) return undefined
    const target = isAbsolute(pointer) ? pointer : resolve(dir, pointer)
    return statSync(target, { throwIfNoEntry: false })?.isDirectory()
      ? linkTarget(target)
      : undefined
  } catch {
    return undefined
  }
}

/** `path` with the links at its end followed (not those on its way: it stays beside the tree). */
function linkTarget(path: string): string {
  for (let hops = 0; hops < 40 && lstatSync(path).isSymbolicLink(); hops++)
    path = resolve(dirname(path), readlinkSync(path))
  return path
}
