import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

/** What a sandboxed command may see and write. */
export interface SandboxLayout {
  /** The work tree: with a private temp folder, the one place a command may write. */
  workTree: string
  /** Git's folders, read-only even where they sit inside the work tree. */
  gitDirs: string[]
  /**
   * Folders replaced by an empty one: the runner's temp and file commands, the action, logs.
   * One that does not exist (yet) when a command starts is skipped for that command.
   */
  hidden: string[]
}

const FILE_COMMANDS = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
  'GITHUB_EVENT_PATH'
]

/**
 * The folders a command must not see, from the runner's variables: RUNNER_TEMP, the folders of
 * the file commands (writing GITHUB_ENV would run code in every later step), the action's own
 * files and the runner's installation (its credentials), and where results and logs go.
 * A folder that holds the work tree is left visible (the work tree must stay reachable).
 */
export function hiddenFolders(
  env: NodeJS.ProcessEnv,
  workTree: string,
  extra: readonly (string | undefined)[] = []
): string[] {
  const folders = new Set<string>()
  const add = (path: string | undefined) => {
    if (!path || !isAbsolute(path)) return
    const folder = resolve(path)
    if (folder === '/' || contains(folder, workTree)) return
    folders.add(folder)
  }
  add(env.RUNNER_TEMP)
  for (const name of FILE_COMMANDS) add(env[name] ? dirname(env[name]!) : undefined)
  add(env.GITHUB_ACTION_PATH)
  const runnerRoot = process.execPath.split(`${sep}externals${sep}`)
  if (runnerRoot.length > 1) add(runnerRoot[0])
  extra.forEach(add)
  // A folder inside another hidden one is hidden with it (and could not be mounted on there).
  const all = [...folders]
  return all
    .filter((folder) => !all.some((other) => other !== folder && contains(other, folder)))
    .sort()
}

/** `inner` is `outer` or lies below it. */
export function contains(outer: string, inner: string): boolean {
  const path = relative(outer, inner)
  return path === '' || (!path.startsWith('..') && !isAbsolute(path))
}
