import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { processStartTime } from '../sandbox/index.js'
import type { ConfigEntry } from './repo-config.js'

export const FALLBACK_IDENTITY = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com'
}

const written = new Map<string, string>()
let folder: string | undefined

/**
 * A file for GIT_CONFIG_GLOBAL that sets the bot identity and then includes the user's own
 * global config files, so any identity configured anywhere (global, repository, environment)
 * still wins. Git has no lower-precedence place for a default, and asking `git config` first
 * would cost a process on every run.
 */
export function identityFallbackConfig(env: NodeJS.ProcessEnv): string {
  const includes = globalConfigFiles(env)
  const lines = ['[user]', `\tname = ${FALLBACK_IDENTITY.name}`]
  // git reads EMAIL only when user.email is unset; a default here would hide it.
  if (!env.EMAIL) lines.push(`\temail = ${FALLBACK_IDENTITY.email}`)
  if (includes.length > 0)
    lines.push('[include]', ...includes.map((path) => `\tpath = ${quote(path)}`))
  const text = `${lines.join('\n')}\n`
  const cached = written.get(text)
  // Validation runs repository code as this user: a file it changed is written again before
  // git reads it.
  if (cached && unchanged(cached, text)) return cached
  // A private folder of this process: a file another local user could write would be config
  // that every git command here reads.
  if (!folder) {
    removeFoldersOfEndedRuns()
    const owner = `${process.pid}-${processStartTime(process.pid) ?? 0}`
    const created = mkdtempSync(join(tmpdir(), `patchsmith-git-${owner}-`))
    folder = created
    process.once('exit', () => rmSync(created, { recursive: true, force: true }))
  }
  const file = cached ?? join(folder, `global-${written.size}.gitconfig`)
  rmSync(file, { recursive: true, force: true })
  writeFileSync(file, text, { mode: 0o600, flag: 'wx' })
  written.set(text, file)
  return file
}

/**
 * The folders of this user's runs that ended without their exit handler (killed, as a cancelled
 * job's step is): each is named by its process's pid and start time, and goes once that process
 * is gone. Only folders (never through a link) this user owns; a name not of that form is left.
 */
function removeFoldersOfEndedRuns(): void {
  let names: string[]
  try {
    names = readdirSync(tmpdir())
  } catch {
    return
  }
  for (const name of names) {
    const owner = /^patchsmith-git-(\d+)-(\d+)-[^/]+$/.exec(name)
    if (!owner || processStartTime(Number(owner[1])) === owner[2]) continue
    const path = join(tmpdir(), name)
    try {
      const stat = lstatSync(path)
      if (stat.isDirectory() && stat.uid === process.getuid?.())
        rmSync(path, { recursive: true, force: true })
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

function unchanged(file: string, text: string): boolean {
  try {
    return lstatSync(file).isFile() && readFileSync(file, 'utf8') === text
  } catch {
    return false
  }
}

/** The files git reads as global config, in its order (a later one wins). */
function globalConfigFiles(env: NodeJS.ProcessEnv): string[] {
  if (env.GIT_CONFIG_GLOBAL) return [env.GIT_CONFIG_GLOBAL]
  const files: string[] = []
  const xdg = env.XDG_CONFIG_HOME || (env.HOME ? join(env.HOME, '.config') : '')
  if (xdg) files.push(join(xdg, 'git', 'config'))
  if (env.HOME) files.push(join(env.HOME, '.gitconfig'))
  return files
}

function quote(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/**
 * `git var GIT_COMMITTER_IDENT` without its process, as "name <email>" (no date), from the
 * config the seal listed and the environment git gets: name from GIT_COMMITTER_NAME,
 * committer.name, user.name; email from GIT_COMMITTER_EMAIL, committer.email, user.email,
 * EMAIL (git's order; the last of a key wins). Undefined, so the caller asks git, wherever
 * git would change the value (characters it strips or drops) or make one up (nothing set).
 */
export function committerIdent(entries: readonly ConfigEntry[]): string | undefined {
  // The variables read here pass git's allowlist (gitEnv) as they are.
  const env = process.env
  const last = (key: string) => entries.filter((entry) => entry.key === key).at(-1)?.value
  const name = env.GIT_COMMITTER_NAME ?? last('committer.name') ?? last('user.name')
  const email =
    env.GIT_COMMITTER_EMAIL ?? last('committer.email') ?? last('user.email') ?? env.EMAIL
  if (name === undefined || email === undefined || !asGitKeeps(name) || !asGitKeeps(email))
    return undefined
  return `${name} <${email}>`
}

/** ident.c strips these "crud" characters from both ends, and drops <, > and newlines. */
function asGitKeeps(text: string): boolean {
  const crud = (char: string) => char <= ' ' || '.,:;<>"\\\''.includes(char)
  return text.length > 0 && !/[<>\n]/.test(text) && !crud(text[0]!) && !crud(text.at(-1)!)
}
