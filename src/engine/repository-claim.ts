import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { RunConfig } from '../config.js'
import { GitConflictError } from '../contract/index.js'
import { pushAuth } from '../git/index.js'
import {
  leftoverSigns,
  loadJournalKey,
  recoverRepository,
  RunJournal,
  RunLock,
  unverifiedJournalMessage,
  type UnverifiedJournal
} from '../run-state/index.js'
import type { Logger, RunnerFacts } from '../run/index.js'

/**
 * The work tree's lock, taken before the run reads or changes anything; then, if a run that is
 * gone (SIGKILL, a dead runner) left a journal that verifies, what it changed is put back first,
 * and said. A journal that does not verify is never carried out (see UnverifiedJournal).
 * Undefined when there is no repository: loading refuses that with the right error.
 */
export async function claimRepository(
  repoDir: string,
  config: RunConfig,
  logger: Logger,
  facts: RunnerFacts
): Promise<RunLock | undefined> {
  if (!existsSync(join(repoDir, '.git'))) return undefined
  const lock = RunLock.acquire(repoDir)
  try {
    if (lock.replaced) logger.info(`Took over a stale lock: ${lock.replaced.why}.`)
    const key = loadJournalKey(true)
    if ('problem' in key)
      logger.warn(
        `No journal key: ${key.problem}. If this run is killed, its journal cannot be verified, so the next run will not put the repository back by itself.`
      )
    const recovery = await recoverRepository(
      repoDir,
      pushAuth(config.githubToken, facts.serverUrl, facts.vars)
    )
    if (!recovery) return lock
    if (!recovery.verified) {
      await setAsideUnverified(repoDir, recovery, logger)
      return lock
    }
    const { record, done, problems } = recovery
    logger.warn(
      `An earlier run (pid ${record.pid}, started ${record.started}, branch ${record.branch}) ended without cleaning up; restored the repository first: ${done.join('; ') || 'nothing to undo'}.`
    )
    if (problems.length > 0)
      throw new GitConflictError(
        `The repository could not be fully restored after an earlier run that died: ${problems.join('; ')}. Fix that, then run \`patchsmith recover --repo ${repoDir}\` or rerun.`,
        { rule: 'recovery-failed', problems },
        false
      )
    return lock
  } catch (error) {
    lock.release()
    throw error
  }
}

/**
 * A journal that does not verify is reported and not carried out. The run goes on only when
 * nothing in the repository looks left over by a killed run (the journal is then moved aside for
 * a person to read); otherwise it refuses (`journal-unverified`) until the user has looked.
 */
async function setAsideUnverified(
  repoDir: string,
  journal: UnverifiedJournal,
  logger: Logger
): Promise<void> {
  const message = unverifiedJournalMessage(journal)
  const signs = await leftoverSigns(repoDir, journal)
  if (signs.length > 0)
    throw new GitConflictError(
      `${message} This run refuses to start until then, because ${signs.join('; ')}.`,
      { rule: 'journal-unverified', problem: journal.problem, signs },
      false
    )
  const kept = RunJournal.for(repoDir).setAside()
  logger.warn(
    `${message} The repository is otherwise clean, so this run goes on; the journal was moved to ${kept} for you to read.`
  )
}

/**
 * `patchsmith recover`: a stale lock cleared and a dead run's journal carried out by hand (or,
 * when it does not verify, reported and left alone). Returns the exit code: 0 done, 1 something
 * is left for the user, 2 not a repository; never throws.
 */
export async function recoverByHand(
  repoDir: string,
  githubToken: string | undefined,
  logger: Logger
): Promise<number> {
  if (!existsSync(join(repoDir, '.git'))) {
    logger.warn(`${repoDir} is not a git repository.`)
    return 2
  }
  let lock: RunLock | undefined
  try {
    lock = RunLock.acquire(repoDir)
    if (lock.replaced) logger.info(`Cleared a stale lock: ${lock.replaced.why}.`)
    const recovery = await recoverRepository(repoDir, pushAuth(githubToken))
    if (!recovery) {
      logger.info(`Nothing to recover in ${repoDir}: no run left a journal.`)
      return 0
    }
    if (!recovery.verified) {
      logger.warn(unverifiedJournalMessage(recovery))
      return 1
    }
    const { record, done, problems } = recovery
    logger.info(
      `Recovered after the run of pid ${record.pid} (started ${record.started}, branch ${record.branch}): ${done.join('; ') || 'nothing to undo'}.`
    )
    problems.forEach((problem) => logger.warn(`Not recovered: ${problem}`))
    return problems.length > 0 ? 1 : 0
  } catch (error) {
    logger.warn(`Could not recover ${repoDir}: ${(error as Error).message}`)
    return 1
  } finally {
    lock?.release()
  }
}
