import { Git } from '../git/index.js'
import type { Recovery } from './journal-recovery.js'

export type UnverifiedJournal = Extract<Recovery, { verified: false }>

/** The report of a journal that is not carried out: what it is, and what the user does. */
export function unverifiedJournalMessage(journal: UnverifiedJournal): string {
  const { pid, branch } = journal.claimed
  const about =
    typeof branch === 'string'
      ? ` (it claims pid ${String(pid)}, branch ${JSON.stringify(branch)})`
      : ''
  return `The run journal ${journal.file}${about} was not carried out: it ${journal.problem}. Patchsmith left the repository alone. If a run of yours was killed, look at what it left (git status, git branch -a, git stash list) and put it back by hand; then delete ${journal.file}.`
}

/**
 * What a killed run may have left that a new run must not build on, found without trusting the
 * journal (its claimed branch is only compared with): uncommitted changes to tracked files, HEAD
 * on the branch it names, a Patchsmith stash on top. Empty: the repository is otherwise clean.
 */
export async function leftoverSigns(
  repoDir: string,
  journal: UnverifiedJournal
): Promise<string[]> {
  const git = await Git.open(repoDir)
  const signs: string[] = []
  const status = await git.status()
  if (status.changed.length > 0 || status.unmerged.length > 0)
    signs.push('tracked files have uncommitted changes')
  const { branch, base } = journal.claimed
  if (typeof branch === 'string' && branch !== base && status.branch === branch)
    signs.push(`HEAD is on ${branch}, the branch the journal names as the run's`)
  const top = await git.exec(['log', '-g', '-1', '--format=%s', 'refs/stash', '--'], {
    allowFailure: true
  })
  if (top.exitCode === 0 && /(^|: )patchsmith: /.test(top.stdout.trim()))
    signs.push('the newest stash entry is one Patchsmith made')
  return signs
}
