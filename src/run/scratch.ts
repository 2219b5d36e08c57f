import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, isAbsolute, join, resolve } from 'node:path'

/**
 * Where a run keeps its result file and attempt logs unless told: under Actions, the job's own
 * `RUNNER_TEMP/patchsmith`; elsewhere a folder of this user's in the system temp (mode 0700)
 * and in it one per repository, named after the repository's folder and a short hash of its
 * real path (`patchsmith-0/click-1a2b3c4d`): two repositories on one machine never share a
 * result, and `resume: true` in the same repository finds the last one. Never a folder another
 * user made first (two runner users on one self-hosted machine): then a fresh private folder.
 */
export function scratchFolder(
  vars: Readonly<Record<string, string | undefined>>,
  where: { repoDir?: string; tempRoot?: string } = {}
): string {
  const { repoDir, tempRoot = tmpdir() } = where
  const runnerTemp = vars.RUNNER_TEMP
  if (runnerTemp && isAbsolute(runnerTemp)) return join(runnerTemp, 'patchsmith')
  const uid = process.getuid?.()
  if (uid === undefined) return mkdtempSync(join(tempRoot, 'patchsmith-'))
  const folder = join(tempRoot, `patchsmith-${uid}`)
  if (!privateFolder(folder, uid)) return mkdtempSync(join(tempRoot, 'patchsmith-'))
  if (repoDir === undefined) return folder
  const own = join(folder, repositoryKey(repoDir))
  return privateFolder(own, uid) ? own : mkdtempSync(join(tempRoot, 'patchsmith-'))
}

/** Made (mode 0700) when missing; true when it is this user's folder and open to no one else. */
function privateFolder(folder: string, uid: number): boolean {
  try {
    mkdirSync(folder, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const stat = lstatSync(folder)
  return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0
}

/** `click-1a2b3c4d`: the folder's name for a person, the hash of its real path to tell clones apart. */
function repositoryKey(repoDir: string): string {
  let path = resolve(repoDir)
  try {
    path = realpathSync(path)
  } catch {
    // No such folder yet: loading refuses the run; its scratch folder is still its own.
  }
  const hash = createHash('sha256').update(path).digest('hex').slice(0, 8)
  const name = basename(path)
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 40)
  return name ? `${name}-${hash}` : hash
}
