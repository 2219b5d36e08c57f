import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join } from 'node:path'
import { contains, trustedProgramValue } from '../sandbox/index.js'
import { gitDirs } from './git-dirs.js'
import { configIncludes } from './config-includes.js'
import { MOST_CONFIG_BYTES, readRegularFile } from './regular-file.js'

/** One entry of `git config --list --includes --show-scope --show-origin -z`. */
export interface ConfigEntry {
  scope: string
  /** The file the entry came from (absolute), or git's name for another source. */
  origin: string
  /** As git prints it: section and name lower case, a subsection as written. */
  key: string
  value: string
}

/** The arguments that list the effective config with where each entry came from. */
export const CONFIG_LIST = ['config', '--list', '--includes', '--show-scope', '--show-origin', '-z']

export function parseConfigList(stdout: string, cwd: string): ConfigEntry[] {
  const fields = stdout.split('\0')
  const entries: ConfigEntry[] = []
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, pair] = [fields[i]!, fields[i + 1]!, fields[i + 2]!]
    const newline = pair.indexOf('\n')
    const key = newline < 0 ? pair : pair.slice(0, newline)
    const value = newline < 0 ? '' : pair.slice(newline + 1)
    // Kept as git names it: `a/link/..` is not `a` (the kernel follows the link first).
    const named = origin.slice(5)
    const file = origin.startsWith('file:')
      ? isAbsolute(named)
        ? named
        : join(cwd, named)
      : origin
    entries.push({
      scope: ownedByRepository(scope, file, key, value, cwd),
      origin: file,
      key,
      value
    })
  }
  return entries
}

/**
 * The user's own config (global, system, command line: GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT)
 * is the repository's where it comes from a file of the work tree it includes (attack rounds 18
 * and 22: `git config --global include.path $GITHUB_WORKSPACE/.gitconfig` in a setup step), or
 * sends a remote command to this machine (`url.<tree>/x.git.insteadOf`, a remote's `pushurl`:
 * a local transport runs the hooks there, rounds 19 and 21) or to a program of the work tree
 * (a remote's `receivepack`): refused at a remote command like the repository's own.
 */
function ownedByRepository(
  scope: string,
  origin: string,
  key: string,
  value: string,
  repoDir: string
): string {
  if (!usersOwn(scope)) return scope
  // First: a file of the tree is the repository's whatever it sets (attack round 23: its url
  // rewrite to a server elsewhere).
  if (isAbsolute(origin) && insideFolder(repoDir, origin)) return 'local'
  const url =
    /^url\.(.+)\.(insteadof|pushinsteadof)$/s.exec(key)?.[1] ??
    (/^remote\..+\.(url|pushurl)$/s.test(key) ? value : undefined)
  if (url !== undefined) return onThisMachine(url) ? 'local' : scope
  if (/^remote\..+\.(receivepack|uploadpack)$/s.test(key))
    return trustedProgramValue(value, [repoDir]) ? scope : 'local'
  return scope
}

/**
 * A path or `file://` URL: git reads these its own way (`file://localhost/…`, `%6F`, relative to
 * the work tree), which is not followed here, so every one counts.
 */
function onThisMachine(url: string): boolean {
  if (/^file:/i.test(url)) return true
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^[^/]+:/.test(url)
}

/** An include git resolves from its own install prefix: listed again before every command. */
export function relistsAlways(entries: readonly ConfigEntry[]): boolean {
  return entries.some(
    (entry) => /^include(if\..*)?\.path$/s.test(entry.key) && entry.value.startsWith('%(prefix)/')
  )
}

function insideFolder(folder: string, path: string): boolean {
  return contains(physical(folder), physical(path))
}

/** Config the user sets for every repository (global, system, command line), not the repository. */
export function usersOwn(scope: string): boolean {
  return scope !== 'local' && scope !== 'worktree'
}

/** Entries the repository controls: its own config, worktree config and what they include. */
export function repositoryEntries(entries: readonly ConfigEntry[]): ConfigEntry[] {
  return entries.filter((entry) => !usersOwn(entry.scope))
}

// Keys whose value git runs as a program: for a driver of any name (attributes pick drivers),
// a trailer's command (interpret-trailers runs it for every message), and the external diff,
// askpass and alternate-refs commands.
const DRIVER_PROGRAM =
  /^(filter\.(.+)\.(clean|smudge|process)|diff\.(.+)\.(command|textconv)|merge\.(.+)\.driver|trailer\.(.+)\.(cmd|command)|diff\.external|core\.askpass|core\.alternaterefscommand)$/s

// Keys whose value a remote command runs on the host: the user's own (command-line) ones are
// kept unless they name a program in the repository.
const HOST_PROGRAM =
  /^(core\.sshcommand|core\.gitproxy|core\.askpass|credential\.(?:.+\.)?helper)$/s
/** What each is sealed to: git's own choice (an empty ssh command is one git cannot run). */
const HOST_DEFAULT: Record<string, string> = { 'core.sshcommand': 'ssh', 'core.gitproxy': 'none' }

/**
 * Config that runs a program, off for every git process Patchsmith starts whatever the config
 * files say: fsmonitor, signing (gpg.program runs only to sign or verify), background
 * maintenance (gc runs hooks), submodules (each has config of its own). Hooks
 * are off by `core.hooksPath` in git.ts unless they run in the jail.
 */
export const STATIC_SEAL: ReadonlyArray<[string, string]> = [
  ['core.fsmonitor', 'false'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['push.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['submodule.recurse', 'false'],
  // A gitlink's folder can hold a repository of its own (validation can `git init` one) whose
  // config is nobody's seal: status, diff and transfers never look into it.
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
  ['fetch.recurseSubmodules', 'false'],
  ['push.recurseSubmodules', 'no'],
  // `git log` reading a mailmap blob is one way a local command fetches a missing object.
  ['log.mailmap', 'false']
]

/**
 * The program keys the effective config (every scope but the command line, includes followed)
 * sets, each emptied: an empty command is one git never runs. A filter without a command passes
 * content through (made optional, so git does not refuse it), a diff or merge driver without
 * one fails that one operation instead of running something. Driver names are arbitrary, so
 * they are read from the config itself, again whenever a config file changed (Git.exec).
 */
export function driverSeal(
  entries: readonly ConfigEntry[],
  repoDir: string
): Array<[string, string]> {
  const seal = new Map<string, string>()
  for (const entry of entries) {
    const trusted = () => trustedProgramValue(entry.value, [repoDir])
    // The user's own transport programs (a deploy key's `ssh -i …` in the global config) stay
    // unless they run a program of the repository's; so do command-line drivers.
    const host = HOST_PROGRAM.exec(entry.key)?.[1]
    if (usersOwn(entry.scope) && host && !trusted()) seal.set(entry.key, HOST_DEFAULT[host] ?? '')
    // The repository's credential helper is refused at a remote command; a local one's lazy
    // fetch from a partial clone would start it too (attack round 23).
    if (!usersOwn(entry.scope) && /^credential\.(.+\.)?helper$/s.test(entry.key))
      seal.set(entry.key, '')
    const match = DRIVER_PROGRAM.exec(entry.key)
    if (!match || (entry.scope === 'command' && trusted())) continue
    seal.set(entry.key, '')
    if (match[2] !== undefined) seal.set(`filter.${match[2]}.required`, 'false')
  }
  return [...seal]
}

/** The keys of `driverSeal` the repository itself set, to be named in the log. */
export function repositoryPrograms(entries: readonly ConfigEntry[]): string[] {
  const keys = repositoryEntries(entries)
    .map((entry) => entry.key)
    .filter(
      (key) =>
        DRIVER_PROGRAM.test(key) ||
        /^(core\.(fsmonitor|hookspath|pager|editor)|sequence\.editor|diff\.external|gpg\..*program|pager\..*)$/i.test(
          key
        )
    )
  return [...new Set(keys)]
}

/**
 * `GIT_CONFIG_PARAMETERS` with these pairs after the parent's own: git's quoted form keeps a
 * `=` or a space in a driver's name (which `-c` would split) part of the key.
 */
export function configParameters(
  parent: string | undefined,
  pairs: ReadonlyArray<[string, string]>
) {
  const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`
  const own = pairs.map(([key, value]) => `${quote(key)}=${quote(value)}`)
  return [parent?.trim(), ...own].filter(Boolean).join(' ')
}

/**
 * What the listing depends on: the config files it read or named (an inactive `includeIf`
 * target too), and HEAD when an `onbranch:` include can turn on. The same digest means the
 * same effective config, so the listing is read again only when one of them changed.
 */
export function configFiles(repoDir: string, entries: readonly ConfigEntry[]): string[] {
  const files = new Set<string>()
  const dirs = gitDirs(repoDir)
  for (const dir of dirs) ['config', 'config.worktree'].forEach((n) => files.add(join(dir, n)))
  configIncludes(repoDir).forEach((file) => files.add(file))
  for (const entry of entries) {
    if (isAbsolute(entry.origin)) files.add(entry.origin)
    // From a file, or from the command line (GIT_CONFIG_COUNT, GIT_CONFIG_PARAMETERS), where
    // only an absolute or `~/` path is included: a target empty at first still changes the
    // digest when an edit fills it (attack round 19).
    if (!/^include(if\..*)?\.path$/s.test(entry.key)) continue
    const value = entry.value
    if (!value || value.startsWith('%(prefix)/')) continue
    const home = process.env.HOME || homedir()
    const user = /^~([^/]+)(\/.*)?$/s.exec(value)
    // Not joined: `a/link/../x` is read as the kernel reads it (join would drop `link/..`).
    if (value === '~' || value.startsWith('~/')) files.add(`${home}${value.slice(1)}`)
    else if (user) files.add(`${homeOf(user[1]!) ?? '/nonexistent'}${user[2] ?? ''}`)
    else if (isAbsolute(value)) files.add(value)
    else if (isAbsolute(entry.origin)) files.add(`${dirname(entry.origin)}/${value}`)
  }
  if (entries.some((entry) => /^includeif\.onbranch:/s.test(entry.key)))
    dirs.forEach((dir) => files.add(join(dir, 'HEAD')))
  // One spelling per file, the kernel's (a link before a `..` after it); one not there yet as
  // named, so it is hashed where it will be made.
  return [...new Set([...files].map(physical))].sort()
}

function physical(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}

/** `~name`'s folder, from the password file (git expands it with getpwnam). */
function homeOf(name: string): string | undefined {
  const line = readRegularFile('/etc/passwd', MOST_CONFIG_BYTES)
  if (line === undefined || line === 'special') return undefined
  for (const entry of line.toString('utf8').split('\n')) {
    const fields = entry.split(':')
    if (fields[0] === name) return fields[5]
  }
  return undefined
}

/** Each file's content hash (absent files too), to tell when the effective config changed. */
export function fileHashes(files: readonly string[]): Map<string, string> {
  const hashes = new Map<string, string>()
  for (const file of files) {
    const bytes = readRegularFile(file, MOST_CONFIG_BYTES)
    if (bytes === undefined || bytes === 'special') hashes.set(file, bytes ?? 'absent')
    else hashes.set(file, createHash('sha256').update(bytes).digest('hex'))
  }
  return hashes
}

export function digestOf(hashes: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256')
  for (const file of [...hashes.keys()].sort()) hash.update(`${file}\0${hashes.get(file)}\0`)
  return hash.digest('hex')
}

/**
 * A token `actions/checkout` left in the repository's config (`persist-credentials: true`):
 * an `http.<url>.extraheader`, or the credentials file newer versions include from the runner's
 * temp folder. Each is said once at start with its fix.
 */
export function persistedCredentials(entries: readonly ConfigEntry[]): string[] {
  const own = repositoryEntries(entries)
  const found = new Set<string>()
  for (const entry of own) {
    if (/^http\..*extraheader$/is.test(entry.key) && entry.value.trim()) found.add(entry.key)
    if (/^include(if\..*)?\.path$/s.test(entry.key) && credentialFile(entry.value))
      found.add(`${entry.key}=${entry.value}`)
  }
  return [...found]
}

function credentialFile(path: string): boolean {
  const temp = process.env.RUNNER_TEMP
  return /credential/i.test(basename(path)) || Boolean(temp && path.startsWith(`${temp}/`))
}
