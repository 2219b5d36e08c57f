import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'

/** A file of .git as the jail sees it: a sanitized copy over it, or nothing (an empty file). */
export interface GitFileCover {
  /** The file in .git. */
  path: string
  /** The sanitized copy shown instead; none: an empty file. */
  source?: string
}

/** Keys whose every value is a credential or leads to one. */
const CREDENTIAL_KEY =
  /^(credential\.|include\.|includeif\.)|\.extraheader$|^http\.(.*\.)?(cookiefile|proxy|sslkey|sslcert|sslcainfo)$/
/** Values that carry a credential whatever their key. */
const CREDENTIAL_VALUE =
  /authorization\s*:|\bbearer\s+\S|\bbasic\s+[A-Za-z0-9+/=]{8,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_\w{20,}|\bglpat-[\w-]{20,}/i
/** `scheme://user:secret@host`: the user part goes. */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi
/** Folders of .git with nothing to sanitize and many entries. */
const SKIP = new Set(['objects', 'refs', 'logs', 'hooks', 'info', 'lfs', 'rr-cache', 'patchsmith'])

/**
 * What .git holds that a command must not read: the token `actions/checkout` persists
 * (`http.<url>.extraheader`), credential helpers and their store files, URLs with a user and
 * password, and the files the config includes (newer checkouts keep the token in one). Every
 * config file (a worktree's, a submodule's) is shown as a copy without them; every credential
 * store and included file is shown empty.
 */
export function gitFileCovers(
  gitDirs: readonly string[],
  into: string,
  /** git's absolute path (never from the work tree: this runs on the host); none shows them empty. */
  git: string | undefined
): GitFileCover[] {
  const covers = new Map<string, GitFileCover>()
  let count = 0
  for (const gitDir of gitDirs)
    for (const file of configFiles(gitDir)) {
      const entries = git ? readConfig(git, file) : undefined
      const source = join(into, `config-${count++}`)
      if (entries) writeFileSync(source, render(entries), { mode: 0o644 })
      else writeFileSync(source, '', { mode: 0o644 })
      covers.set(file, { path: file, source })
      for (const named of namedFiles(entries ?? [], dirname(file)))
        if (!covers.has(named)) covers.set(named, { path: named })
    }
  for (const gitDir of gitDirs)
    for (const file of walk(gitDir))
      if (/credential/i.test(basename(file)) && !covers.has(file)) covers.set(file, { path: file })
  return [...covers.values()]
}

type Entry = [key: string, value: string | undefined]

function configFiles(gitDir: string): string[] {
  return walk(gitDir).filter((file) => /^config(\.worktree)?$/.test(basename(file)))
}

/**
 * Regular files under `dir` at any depth (a submodule's name has as many parts as its path:
 * `.git/modules/vendor/github.com/org/lib/config`), past the folders of a git folder that hold
 * no config. Only a folder with a HEAD is a git folder: a submodule may be named `x/objects`.
 */
function walk(dir: string): string[] {
  const files: string[] = []
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return files
  }
  const isGitDir = names.includes('HEAD')
  for (const name of names) {
    const path = join(dir, name)
    const stat = lstatSync(path, { throwIfNoEntry: false })
    if (stat?.isFile()) files.push(path)
    else if (stat?.isDirectory() && !(isGitDir && SKIP.has(name))) files.push(...walk(path))
  }
  return files
}

/**
 * The file's entries as git reads them (git parses its own syntax); undefined if unreadable. git
 * reads the bytes read here (stdin), so the same bytes parse the same: kept per git and content,
 * a run's jails do not each start git again for an unchanged config.
 */
function readConfig(git: string, file: string): Entry[] | undefined {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return undefined
  }
  const key = `${git}\0${createHash('sha256').update(bytes).digest('hex')}`
  if (!parsed.has(key)) parsed.set(key, gitParse(git, bytes))
  return parsed.get(key)
}

const parsed = new Map<string, Entry[] | undefined>()

function gitParse(git: string, bytes: Buffer): Entry[] | undefined {
  try {
    const text = execFileSync(git, ['config', '--file', '-', '--no-includes', '--list', '-z'], {
      cwd: '/',
      encoding: 'utf8',
      input: bytes,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', HOME: '/' },
      stdio: ['pipe', 'pipe', 'ignore'],
      maxBuffer: 16 * 1024 * 1024
    })
    return text
      .split('\0')
      .filter(Boolean)
      .map((item) => {
        const newline = item.indexOf('\n')
        return newline < 0 ? [item, undefined] : [item.slice(0, newline), item.slice(newline + 1)]
      })
  } catch {
    return undefined
  }
}

/** The entries without credentials, in git's syntax. */
function render(entries: Entry[]): string {
  const sections = new Map<string, string[]>()
  for (const [key, value] of entries) {
    if (CREDENTIAL_KEY.test(key.toLowerCase())) continue
    const clean = value?.replace(USERINFO, '$1')
    if (clean !== undefined && CREDENTIAL_VALUE.test(clean)) continue
    const first = key.indexOf('.')
    const last = key.lastIndexOf('.')
    if (first < 0) continue
    const section = key.slice(0, first)
    const sub = first === last ? undefined : key.slice(first + 1, last).replace(USERINFO, '$1')
    if (sub !== undefined && CREDENTIAL_VALUE.test(sub)) continue
    const header = sub === undefined ? `[${section}]` : `[${section} ${quote(sub)}]`
    const line =
      value === undefined
        ? `\t${key.slice(last + 1)}`
        : `\t${key.slice(last + 1)} = ${quote(clean!)}`
    sections.set(header, [...(sections.get(header) ?? []), line])
  }
  return [...sections].map(([header, lines]) => `${header}\n${lines.join('\n')}\n`).join('')
}

function quote(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')
  return `"${escaped}"`
}

/** Files the config includes or keeps credentials in (`store --file=…`), where they exist. */
function namedFiles(entries: Entry[], base: string): string[] {
  const files: string[] = []
  for (const [key, value] of entries) {
    if (!value) continue
    const lower = key.toLowerCase()
    if (/^(include|includeif\..*)\.path$/.test(lower)) files.push(value)
    if (/^credential\.(.*\.)?helper$/.test(lower)) {
      const store = /--file[= ]\s*("[^"]+"|\S+)/.exec(value)?.[1]?.replace(/"/g, '')
      if (store) files.push(store)
    }
  }
  return files
    .map((path) => (path.startsWith('~/') ? join(homedir(), path.slice(2)) : path))
    .map((path) => (isAbsolute(path) ? path : resolve(base, path)))
    .filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isFile() && existsSync(path))
}
