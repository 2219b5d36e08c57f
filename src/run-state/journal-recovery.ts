import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { stopLeftovers } from '../sandbox/index.js'
import { Git, type PushAuth } from '../git/index.js'
import type { JournalRecord } from './journal-record.js'
import { RunJournal, type JournalReading } from './run-journal.js'

const REMOTE = 'origin'

/**
 * Puts back what a dead run changed, from its verified journal, and only what the run can be
 * shown to have done: a ref is moved or deleted only while it points at a commit the run
 * recorded (and git is told the value it expects), a branch only when the run recorded that it
 * was absent before and it is neither the base, the starting branch nor a default branch, and
 * only untracked files at the recorded paths are removed. Returns what was done (or left alone,
 * and why) and what failed, as sentences.
 */
async function recoverFromJournal(
  git: Git,
  record: JournalRecord,
  auth?: PushAuth
): Promise<{ done: string[]; problems: string[] }> {
  const done: string[] = []
  const problems: string[] = []
  const step = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action()
      done.push(what)
    } catch (error) {
      problems.push(`${what}: ${(error as Error).message}`)
    }
  }
  const branch = record.branch
  const kept = await keptBranches(git, record)
  const stash = await findStash(git, record)
  if (record.stash && !stash)
    done.push(
      `left the stash ${record.stash.slice(0, 12)} alone: it is no longer in the stash list`
    )
  const touchedTree =
    record.worktreeChanged || record.baseMoved || record.leftStart || record.createdLocal
  if (touchedTree) {
    const start = record.startBranch ?? record.startHead
    await step(`checked out ${start}`, () => git.checkout(start, { force: true }))
    if (record.baseMoved) await moveBaseBack(git, record, step, done)
    const paths = createdFiles(git.dir, record.touched)
    if (paths.length > 0)
      await step('removed the files the run created', () =>
        git.exec(['clean', '-f', '-q', '--', ...paths], { env: { GIT_LITERAL_PATHSPECS: '1' } })
      )
  }
  if ((record.createdLocal || record.baseMoved) && !kept.has(branch)) {
    const tip = await git.tryRevParse(`refs/heads/${branch}`)
    if (tip && record.localBefore !== null)
      done.push(`left the branch ${branch} alone: the run did not record creating it`)
    else if (tip && !(record.commits.includes(tip) || tip === record.baseSha))
      done.push(`left the branch ${branch} alone: its tip is not a commit of the run`)
    else if (tip && (await headRef(git)) === `refs/heads/${branch}`)
      problems.push(`delete the branch ${branch}: it is still checked out`)
    else if (tip)
      await step(`deleted the branch ${branch}`, () =>
        git.exec(['update-ref', '-d', `refs/heads/${branch}`, tip])
      )
  }
  if (record.pushing && !kept.has(branch) && record.remoteBefore === null) {
    const heads = await git.remoteHeads(REMOTE, branch, auth?.env).catch((error) => {
      problems.push(`look for ${branch} on ${REMOTE}: ${(error as Error).message}`)
      return undefined
    })
    if (heads?.tip && heads.defaultBranch !== branch && record.commits.includes(heads.tip)) {
      const tip = heads.tip
      await step(`deleted the branch ${branch} on ${REMOTE}`, async () => {
        // Deleted only if it still is at the run's commit when origin gets the push.
        const lease = `refs/heads/${branch}:${tip}`
        const out = await git.push(REMOTE, `:refs/heads/${branch}`, auth?.env, lease)
        if (out.exitCode !== 0) throw new Error(out.stderr.trim())
      })
    }
  } else if (record.pushing && record.remoteBefore !== null) {
    done.push(`left the branch ${branch} on ${REMOTE} alone: the run did not record creating it`)
  }
  if (stash)
    await step('put the uncommitted changes back', async () => {
      const out = await git.stashRestore(stash)
      if (out.exitCode !== 0)
        throw new Error(`they are kept in the stash (${stash.slice(0, 12)}): ${out.stderr.trim()}`)
    })
  return { done, problems }
}

/** Branches a recovery never deletes: the base, where the run started, and the defaults. */
async function keptBranches(git: Git, record: JournalRecord): Promise<Set<string>> {
  const kept = new Set([record.base, ...(record.startBranch ? [record.startBranch] : [])])
  const originHead = await git.exec(['symbolic-ref', '--quiet', `refs/remotes/${REMOTE}/HEAD`], {
    allowFailure: true
  })
  const prefix = `refs/remotes/${REMOTE}/`
  if (originHead.stdout.trim().startsWith(prefix))
    kept.add(originHead.stdout.trim().slice(prefix.length))
  const configured = await git.exec(['config', '--get', 'init.defaultBranch'], {
    allowFailure: true
  })
  kept.add(configured.stdout.trim() || 'master')
  return kept
}

/**
 * push: false moved the base onto the run's commits: back to where it was, only while its tip is
 * the run's and every commit since the recorded start is the run's too.
 */
async function moveBaseBack(
  git: Git,
  record: JournalRecord,
  step: (what: string, action: () => Promise<unknown>) => Promise<void>,
  done: string[]
): Promise<void> {
  const { base, baseSha } = record
  const tip = await git.tryRevParse(`refs/heads/${base}`)
  if (!tip || tip === baseSha) return
  const since = await git.exec(['rev-list', '--max-count=10001', `${baseSha}..${tip}`, '--'], {
    allowFailure: true
  })
  const added = since.stdout.split('\n').filter(Boolean)
  const ours =
    since.exitCode === 0 &&
    record.commits.includes(tip) &&
    added.every((sha) => record.commits.includes(sha)) &&
    (await git.exec(['merge-base', '--is-ancestor', baseSha, tip], { allowFailure: true }))
      .exitCode === 0
  if (!ours) {
    done.push(`left ${base} alone: it holds commits the run did not make`)
    return
  }
  const what = `moved ${base} back to ${baseSha.slice(0, 12)}`
  if ((await headRef(git)) === `refs/heads/${base}`)
    await step(what, async () => {
      if ((await git.revParse('HEAD')) !== tip) throw new Error('HEAD moved meanwhile')
      await git.resetHard(baseSha)
    })
  else await step(what, () => git.exec(['update-ref', `refs/heads/${base}`, baseSha, tip]))
}

/** The recorded paths that are files (not folders, not behind a symlink) in the work tree. */
function createdFiles(workTree: string, paths: readonly string[]): string[] {
  return paths.filter((path) => {
    const parts = path.split('/')
    try {
      for (let i = 1; i < parts.length; i++)
        if (!lstatSync(join(workTree, ...parts.slice(0, i))).isDirectory()) return false
      return !lstatSync(join(workTree, path)).isDirectory()
    } catch {
      return false
    }
  })
}

async function headRef(git: Git): Promise<string | undefined> {
  const out = await git.exec(['symbolic-ref', '--quiet', 'HEAD'], { allowFailure: true })
  return out.exitCode === 0 ? out.stdout.trim() : undefined
}

/**
 * The stash the run made: the recorded one while it is still in the stash list, or one pushed
 * just before the run died, before its SHA reached the journal (found by its message).
 */
async function findStash(git: Git, record: JournalRecord): Promise<string | undefined> {
  if (!record.stash && !record.stashMessage) return undefined
  const list = await git.exec(['stash', 'list', '--format=%H%x09%s'], { allowFailure: true })
  const entries = list.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t') as [string, string])
  if (record.stash) return entries.some(([sha]) => sha === record.stash) ? record.stash : undefined
  const top = entries[0]
  return top && top[1].endsWith(record.stashMessage!) ? top[0] : undefined
}

export type Recovery =
  | { verified: true; record: JournalRecord; done: string[]; problems: string[] }
  | (Extract<JournalReading, { verified: false }> & { file: string })

/**
 * A dead run's journal, if the repository has one: carried out when it verifies (and removed
 * once everything was put back, kept for another try otherwise); reported, with the repository
 * left alone, when it does not. Call with the run lock held: a journal then belongs to a run
 * that is gone.
 */
export async function recoverRepository(
  repoDir: string,
  auth?: PushAuth
): Promise<Recovery | undefined> {
  const journal = RunJournal.for(repoDir)
  const reading = journal.read()
  if (!reading) return undefined
  if (!reading.verified) return { ...reading, file: journal.file }
  // What the dead run still has running would go on changing the repository: stopped first.
  const leftovers = await stopLeftovers(reading.record.processes ?? [])
  if (leftovers.problems.length > 0)
    return {
      verified: true,
      record: reading.record,
      done: leftovers.stopped,
      problems: leftovers.problems
    }
  const result = await recoverFromJournal(await Git.open(repoDir), reading.record, auth)
  if (result.problems.length === 0) journal.remove()
  return {
    verified: true,
    record: reading.record,
    done: [...leftovers.stopped, ...result.done],
    problems: result.problems
  }
}
