import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gitDirs } from '../git/index.js'
import type { GitRunner } from './repo-paths.js'

/**
 * HEAD (what it points to and at), every ref and the stash list: validation that commits,
 * moves a branch or HEAD, or drops the user's stash is refused (the rollback that follows puts
 * the branch back; the user's stash is restored from its commit, which a drop does not delete).
 * One process: HEAD is read from its file (the ref it names, or the commit when detached; the
 * ref's own value is in the list), and the stash's reflog only when there is a stash (without
 * `refs/stash` there is no list to read, and a stash made or dropped changes the refs).
 */
export async function refState(git: GitRunner, repoDir: string): Promise<Map<string, string>> {
  const refs = await git.exec(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)'])
  const state = new Map<string, string>()
  for (const line of refs.stdout.split('\n')) {
    const [name, sha, symref] = line.split('\0')
    if (name && sha !== undefined) state.set(name, `${sha} ${symref ?? ''}`)
  }
  state.set('HEAD', headFile(repoDir))
  const stash = state.has('refs/stash')
    ? await git.exec(['log', '--walk-reflogs', '--format=%H', 'refs/stash', '--'], {
        allowFailure: true
      })
    : undefined
  state.set('stash list', stash?.stdout.trim() ?? '')
  return state
}

function headFile(repoDir: string): string {
  try {
    return `file ${readFileSync(join(gitDirs(repoDir)[0]!, 'HEAD'), 'utf8')}`
  } catch (error) {
    return `unreadable ${(error as NodeJS.ErrnoException).code ?? ''}`
  }
}
