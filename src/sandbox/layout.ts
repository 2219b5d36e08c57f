import { existsSync, realpathSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { delimiter, dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { PatchsmithError } from '../contract/index.js'
import { enclosingGitDirs, hostSecrets, rootEntries, SYSTEM_TREES } from './host-view.js'

/** What a sandboxed command may see and write. */
export interface SandboxLayout {
  /** The work tree: with a private temp folder and HOME, the one place a command may write. */
  workTree: string
  /** Git's folders, read-only even where they sit inside the work tree. */
  gitDirs: string[]
  /**
   * Those of `gitDirs` that belong to repositories around the work tree: sanitized where the
   * jail sees them, never shown where it does not.
   */
  enclosingGitDirs?: string[]
  /**
   * Folders replaced by an empty one: the runner's temp and file commands, this process's temp
   * folder, the action, logs, HOME, the runner's work folder around the repository, the host's
   * /run. One that does not exist (yet) when a command starts is skipped for that command. The
   * work tree (and what `revealed` names) is shown again inside them.
   */
  hidden: string[]
  /**
   * Folders and files shown again, read-only, inside a hidden folder: toolchains (the hosted
   * tool cache, PATH entries, a setup-* action's install), the resolver's configuration.
   */
  revealed?: string[]
  /**
   * Where a revealed toolchain that would look in HOME lives (the command's HOME is a fresh
   * empty folder): PYENV_ROOT, RUSTUP_HOME, unless the runner names them.
   */
  toolchainEnv?: Record<string, string>
}

const FILE_COMMANDS = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
  'GITHUB_EVENT_PATH'
]

/** The host's runtime folders: its sockets (docker, dbus, systemd), pid files, user sessions. */
const HOST_RUNTIME = ['/run', '/var/run']

/** Folders no rule may hide whole: without them nothing runs. */
const SYSTEM_ROOTS = new Set(
  ['/', '/usr', '/etc', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/var']
    .concat(['/srv', '/nix', '/snap', '/proc', '/sys', '/dev', '/boot', '/home', '/tmp', '/mnt'])
    .concat(['/media', '/usr/local', '/usr/share', '/usr/lib'])
)

/** Toolchain roots the setup-* actions and images name by variable. */
const TOOLCHAIN_VARS =
  /^(RUNNER_TOOL_CACHE|AGENT_TOOLSDIRECTORY|JAVA_HOME(_.*)?|GOROOT(_.*)?|RUSTUP_HOME|DOTNET_ROOT|pythonLocation|Python\d?_ROOT_DIR|NVM_DIR|VOLTA_HOME|PYENV_ROOT|PNPM_HOME|COREPACK_HOME|ANDROID_(SDK_)?HOME|CONDA)$/

/**
 * The whole view of the host a command gets: every runner folder, HOME, the runner's work folder
 * (the repository's siblings, `_temp`, `_actions`) and the host's /run hidden, and shown again
 * inside them only the work tree and, read-only, the toolchains.
 */
export function jailLayout(
  env: NodeJS.ProcessEnv,
  workTree: string,
  gitDirs: string[],
  extra: readonly (string | undefined)[] = []
): SandboxLayout {
  const strict = runnerFolders(env, [...extra, processTemp(workTree)])
  const homes = homeFolders(env).filter((home) => !contains(workTree, home))
  const work = workFolders(env, workTree)
  // Of the host's root only the system folders stay; the work tree and toolchains come back.
  const root = [...rootEntries(), ...hostSecrets()]
  // A runner folder inside the work tree (a log folder there) is hidden on its own: its parent
  // is, but the work tree's bind would show it again.
  const inside = strict.filter((folder) => folder !== workTree && contains(workTree, folder))
  const hidden = [
    ...new Set([
      ...outermost([...strict, ...homes, ...work, ...HOST_RUNTIME.map(real), ...root]),
      ...outermost(inside)
    ])
  ]
  const covered = (path: string) => hidden.some((folder) => contains(folder, path))
  // A toolchain is shown again unless it holds something hidden for its own sake.
  const unsafe = (path: string) => [...strict, ...homes].some((folder) => contains(path, folder))
  const revealed = new Set<string>()
  for (const path of [...toolchainPaths(env, homes, workTree), ...SYSTEM_TREES])
    if (isAbsolute(path) && existsSync(path) && covered(path) && !unsafe(path)) revealed.add(path)
  // DNS for setup commands with network: /etc/resolv.conf often points into /run.
  const resolver = real('/etc/resolv.conf')
  if (resolver !== '/etc/resolv.conf' && covered(resolver) && existsSync(resolver))
    revealed.add(resolver)
  const shown = outermost([...revealed])
  const toolchainEnv: Record<string, string> = {}
  for (const [name, folder] of HOME_TOOLCHAINS)
    for (const home of homes) {
      const path = `${home}/${folder}`
      if (!env[name] && shown.some((outer) => contains(outer, path)) && existsSync(path))
        toolchainEnv[name] ??= path
    }
  const enclosing = enclosingGitDirs(workTree).filter((dir) => !gitDirs.includes(dir))
  return {
    workTree,
    gitDirs: [...gitDirs, ...enclosing],
    enclosingGitDirs: enclosing,
    hidden,
    revealed: shown,
    toolchainEnv
  }
}

/** Toolchains that find themselves through HOME unless a variable says where. */
const HOME_TOOLCHAINS = [
  ['RUSTUP_HOME', '.rustup'],
  ['PYENV_ROOT', '.pyenv']
] as const

function runnerFolders(env: NodeJS.ProcessEnv, extra: readonly (string | undefined)[]): string[] {
  const folders = new Set<string>()
  const add = (path: string | undefined) => {
    if (!path || !isAbsolute(path)) return
    const folder = resolve(path)
    // Every backend gives the jail a /dev of its own: hiding the host's (`--output /dev/null`)
    // would only take /dev/null away from the command.
    if (folder !== '/' && !contains('/dev', folder)) folders.add(folder)
  }
  add(env.RUNNER_TEMP)
  for (const name of FILE_COMMANDS) add(env[name] ? dirname(env[name]!) : undefined)
  add(env.GITHUB_ACTION_PATH)
  const runnerRoot = process.execPath.split(`${sep}externals${sep}`)
  if (runnerRoot.length > 1) add(runnerRoot[0])
  extra.forEach(add)
  return [...folders]
}

/**
 * This process's temp folder, to hide: it holds what host git and the run read back (the
 * identity config git reads as GIT_CONFIG_GLOBAL, the sandbox's own folder with the sanitized
 * configs, the seccomp filter and the unshare stash, the commit's scratch index). Refused inside
 * the work tree, found by device and inode (a link or a bind mount of the tree too, and a link
 * in the tree to a folder outside, through which the files are made): there a command could
 * move a folder above it, and the cover with it, or swap the link, and reach them from the next
 * jail. A system root is never hidden whole.
 */
function processTemp(workTree: string): string | undefined {
  const temp = real(tmpdir())
  const tree = safe(() => statSync(workTree))
  const isTree = (folder: string) => {
    const stat = safe(() => statSync(folder))
    return !!stat && !!tree && stat.dev === tree.dev && stat.ino === tree.ino
  }
  // The path as written too: the run's files are made through it, a link in the tree among them.
  const inTree = [resolve(tmpdir()), temp].find((path) => foldersUp(path).some(isTree))
  if (inTree !== undefined)
    throw new PatchsmithError(
      'ENVIRONMENT_ERROR',
      `TMPDIR (${inTree}) is inside the repository's work tree (${workTree}): the files this run keeps there would be open to the validation commands it runs. Point TMPDIR at a folder outside the repository.`,
      { path: inTree }
    )
  return SYSTEM_ROOTS.has(temp) ? undefined : temp
}

/** `path` and each folder above it, up to the root. */
function foldersUp(path: string): string[] {
  const folders = [path]
  while (dirname(folders.at(-1)!) !== folders.at(-1)) folders.push(dirname(folders.at(-1)!))
  return folders
}

/** The runner's HOME and this user's home by the password file (a container's HOME differs). */
function homeFolders(env: NodeJS.ProcessEnv): string[] {
  const homes = [env.HOME, safe(() => homedir())]
  if (process.getuid?.() === 0) homes.push('/root')
  const absolute = homes.filter((path): path is string => !!path && isAbsolute(path))
  return [...new Set(absolute.map((path) => resolve(path)))].filter(
    (path) => !SYSTEM_ROOTS.has(path)
  )
}

/**
 * The runner's work folder around the repository: the workspace's parent (other checkouts) and
 * the folder it shares with RUNNER_TEMP (`_work`: `_temp`, `_actions`, `_tool`, other repos).
 */
function workFolders(env: NodeJS.ProcessEnv, workTree: string): string[] {
  const folders: string[] = []
  const workspace = env.GITHUB_WORKSPACE && isAbsolute(env.GITHUB_WORKSPACE)
  if (workspace) folders.push(dirname(resolve(env.GITHUB_WORKSPACE!)))
  if (workspace && env.RUNNER_TEMP && isAbsolute(env.RUNNER_TEMP))
    folders.push(commonFolder(resolve(env.GITHUB_WORKSPACE!), resolve(env.RUNNER_TEMP)))
  return folders.filter((folder) => !SYSTEM_ROOTS.has(folder) && contains(folder, workTree))
}

/** PATH entries and the toolchain roots named by variables; HOME's rustup, where it is. */
function toolchainPaths(env: NodeJS.ProcessEnv, homes: string[], workTree: string): string[] {
  const paths = (env.PATH ?? '').split(delimiter).filter(Boolean)
  for (const [name, value] of Object.entries(env))
    if (value && TOOLCHAIN_VARS.test(name)) paths.push(value)
  for (const home of homes)
    paths.push(...HOME_TOOLCHAINS.map(([, folder]) => `${home}/${folder}`), `${home}/.cargo/bin`)
  const workspace = env.GITHUB_WORKSPACE
  // A repository in a subfolder of the checkout still sees the rest of it (a monorepo's tools).
  if (workspace && isAbsolute(workspace) && contains(resolve(workspace), workTree))
    if (resolve(workspace) !== workTree) paths.push(workspace)
  return paths.map((path) => resolve(path))
}

/** Only the outermost of nested folders (an inner one is hidden with its parent). */
function outermost(paths: string[]): string[] {
  const all = [...new Set(paths)]
  return all
    .filter((folder) => !all.some((other) => other !== folder && contains(other, folder)))
    .sort()
}

function commonFolder(a: string, b: string): string {
  let folder = a
  while (!contains(folder, b)) folder = dirname(folder)
  return folder
}

function real(path: string): string {
  return safe(() => realpathSync(path)) ?? path
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** `inner` is `outer` or lies below it (`outer/..name` does too: only a `..` segment leaves). */
export function contains(outer: string, inner: string): boolean {
  const path = relative(outer, inner)
  return path === '' || (path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path))
}
