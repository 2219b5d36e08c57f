import { statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { PatchsmithError } from '../contract/index.js'
import { gitDirs } from './git-dirs.js'
import { MOST_CONFIG_BYTES, readRegularFile } from './regular-file.js'
import type { ConfigEntry } from './repo-config.js'

/** /dev/null (1:3), which `core.excludesFile = /dev/null` and the like name on purpose. */
const DEV_NULL = (1 << 8) | 3

/**
 * Refuses a file git would read whole that never ends: a device (/dev/zero, /dev/kmsg) or a
 * file of procfs or sysfs (/proc/self/pagemap) named as a config file or include, as
 * `core.attributesFile` or `core.excludesFile`, or at `.git/info/attributes` or `exclude`. git
 * reads such a file forever, its memory growing, and waits on no fifo (the fifo watch,
 * fifo-watch.ts, catches those: a fifo here is left to it). Absent files, folders and /dev/null
 * pass; links are followed, as git follows them.
 */
export function assertNoEndlessSources(paths: Iterable<string>): void {
  for (const path of paths) {
    const kind = endlessKind(path)
    if (!kind) continue
    throw new PatchsmithError(
      'ENVIRONMENT_ERROR',
      `git would read ${path}, which is ${kind} that never ends, cannot be read or is over 16 MiB: git would read it until it runs out of memory, or fail on it, so nothing is run. Take it out of the repository's config or .git/info (a config file, an include, core.attributesFile, core.excludesFile) and run again.`,
      { rule: 'git-special-file', path }
    )
  }
}

function endlessKind(path: string): string | undefined {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return undefined
  }
  if (stat.isFIFO() || stat.isDirectory()) return undefined
  if (stat.isCharacterDevice()) return stat.rdev === DEV_NULL ? undefined : 'a device'
  if (stat.isFile())
    return readRegularFile(path, MOST_CONFIG_BYTES) === 'special' ? 'a file' : undefined
  return stat.isBlockDevice() ? 'a device' : stat.isSocket() ? 'a socket' : 'a special file'
}

/** The files besides the config that git reads for attributes and ignore rules. */
export function attributeAndIgnoreSources(
  repoDir: string,
  entries: readonly ConfigEntry[]
): string[] {
  const common = gitDirs(repoDir).at(-1)!
  const files = [join(common, 'info', 'attributes'), join(common, 'info', 'exclude')]
  const home = process.env.HOME || homedir()
  const xdg = process.env.XDG_CONFIG_HOME || join(home, '.config')
  const defaults = { 'core.attributesfile': 'attributes', 'core.excludesfile': 'ignore' }
  for (const [key, name] of Object.entries(defaults)) {
    const value = entries.filter((entry) => entry.key === key).at(-1)?.value
    // Unset, git reads $XDG_CONFIG_HOME/git/<name> (~/.config/git/<name>).
    if (!value) files.push(join(xdg, 'git', name))
    else if (value === '~' || value.startsWith('~/')) files.push(join(home, value.slice(1)))
    else files.push(isAbsolute(value) ? value : resolve(repoDir, value))
  }
  return files
}
