import { lstatSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'

/**
 * Where a run keeps its result file and attempt logs unless told: under Actions, the job's own
 * `RUNNER_TEMP/patchsmith`; elsewhere a folder of this user's in the system temp (mode 0700),
 * stable so `resume: true` finds the last result, but never one another user made first (two
 * runner users on one self-hosted machine): then a fresh private folder for this run.
 */
export function scratchFolder(
  vars: Readonly<Record<string, string | undefined>>,
  tempRoot: string = tmpdir()
): string {
  const runnerTemp = vars.RUNNER_TEMP
  if (runnerTemp && isAbsolute(runnerTemp)) return join(runnerTemp, 'patchsmith')
  const uid = process.getuid?.()
  if (uid === undefined) return mkdtempSync(join(tempRoot, 'patchsmith-'))
  const folder = join(tempRoot, `patchsmith-${uid}`)
  try {
    mkdirSync(folder, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const stat = lstatSync(folder)
  const ours = stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0
  return ours ? folder : mkdtempSync(join(tempRoot, 'patchsmith-'))
}
