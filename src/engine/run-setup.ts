import { existsSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { RunConfig } from '../config.js'
import { GitConflictError, InvalidInputError, SecurityViolationError } from '../contract/index.js'
import { gitDirs, pushAuth, type Git } from '../git/index.js'
import {
  journalKeyFolder,
  leftoverSigns,
  loadJournalKey,
  recoverRepository,
  RunJournal,
  RunLock,
  unverifiedJournalMessage,
  type UnverifiedJournal
} from '../run-state/index.js'
import { parsePricing, RunBudget } from '../model/index.js'
import { BACKENDS, jailLayout, Sandbox, validationEnv, type BackendName } from '../sandbox/index.js'
import { checkOutputPath } from '../report/index.js'
import { SecretMasker } from '../secrets/index.js'
import { RemovedAfterValidation } from '../agent/index.js'
import {
  PhaseClock,
  scratchFolder,
  type Logger,
  type RunListener,
  type RunnerFacts
} from '../run/index.js'

export interface RunSetup {
  clock: PhaseClock
  /** What validation left that the run removed (metrics.removed_after_validation). */
  removed: RemovedAfterValidation
  budget: RunBudget
  masker: SecretMasker
  /** The caller's logger behind the masker. */
  logger: Logger
  repoDir: string
  outputPath: string
  /** Folders the run's outputs go to (the result's, the CLI's pull-request body's): hidden in the jail. */
  outputFolders: string[]
  logDir: string
  facts: RunnerFacts
}

/**
 * What every run starts with, whatever it runs (one plan, a task file): the clock, the budgets,
 * every secret registered and masked, and where the result and the attempt logs go.
 */
export function startRun(
  config: RunConfig,
  env: RunnerFacts & {
    logger: Logger
    onSecret?: (value: string) => void
    cancel?: AbortSignal
    progress?: RunListener
    masker?: SecretMasker
    /** Other files the caller writes once the run ends (the CLI's `--pull-request-body`). */
    outputFiles?: ReadonlyArray<{ path: string; field: string }>
  }
): RunSetup {
  const masker = env.masker ?? runMasker(config, env.vars)
  for (const value of masker.values()) env.onSecret?.(value)
  let scratch: string | undefined
  const repoDir = resolve(config.repo)
  const outputPath = config.outputPath
    ? resolve(config.outputPath)
    : join((scratch ??= scratchFolder(env.vars, { repoDir })), 'result.json')
  const logDir = config.logDir
    ? resolve(config.logDir)
    : defaultLogDir((scratch ??= scratchFolder(env.vars, { repoDir })))
  checkOutputPath(outputPath, 'output-path')
  for (const file of env.outputFiles ?? []) checkOutputPath(file.path, file.field)
  checkLogDir(logDir)
  return {
    clock: new PhaseClock(env.progress),
    removed: new RemovedAfterValidation(),
    budget: new RunBudget(
      {
        maxAttempts: config.maxAttempts,
        maxTotalTokens: config.maxTotalTokens,
        timeLimitMs: config.timeLimit * 1000,
        maxCostUsd: config.maxCost,
        ...(config.modelPricing ? { pricing: parsePricing(config.modelPricing) } : {})
      },
      env.cancel
    ),
    masker,
    // The runner masks registered values only; pattern rules (keys, tokens) are applied here.
    logger: {
      info: (message) => env.logger.info(masker.mask(message)),
      warn: (message) => env.logger.warn(masker.mask(message)),
      debug: (message) => env.logger.debug(masker.mask(message))
    },
    repoDir,
    outputPath,
    outputFolders: [outputPath, ...(env.outputFiles ?? []).map((file) => file.path)].map((path) =>
      dirname(path)
    ),
    logDir,
    facts: env
  }
}

/** The run's one masker: every secret the settings and the environment hold, and the patterns. */
export function runMasker(config: RunConfig, vars: RunnerFacts['vars']): SecretMasker {
  return SecretMasker.forRun({
    apiKey: config.apiKey,
    githubToken: config.githubToken,
    env: vars,
    validationEnv: config.validationEnv
  })
}

/** A log folder is made where none is; something else at its name is never replaced. */
function checkLogDir(logDir: string): void {
  const found = statSync(logDir, { throwIfNoEntry: false })
  if (found && !found.isDirectory())
    throw new InvalidInputError(
      `log-dir ${logDir} is not a folder: Patchsmith writes its attempt logs into a folder and deletes nothing it did not make; give the path of a folder.`,
      { field: 'log-dir', path: logDir, rule: 'not-a-file' }
    )
}

/** A fresh folder per run, outside the work tree, so logs are never committed. */
function defaultLogDir(scratch: string): string {
  return join(scratch, `logs-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`)
}

/**
 * The run's sandbox, chosen once before any model call: `required` refuses a machine without
 * one, `auto` says so in the log (and the summary, through the metrics).
 */
export async function openSandbox(config: RunConfig, setup: RunSetup): Promise<Sandbox> {
  const { repoDir, logger, outputFolders, logDir, facts } = setup
  if (config.sandbox === 'off') {
    logger.warn('sandbox: off: validation commands run with the powers of this step.')
    return Sandbox.none(['sandbox: off'])
  }
  // No repository there: loading refuses the run with the right error before anything runs.
  if (!existsSync(join(repoDir, '.git'))) return Sandbox.none(['no repository'])
  const layout = jailLayout(facts.vars, repoDir, gitDirs(repoDir), [
    ...outputFolders,
    logDir,
    journalKeyFolder()
  ])
  const backends = backendChoice(facts.vars.PATCHSMITH_SANDBOX_BACKENDS)
  const sandbox = await Sandbox.open(layout, backends, {
    network: config.validationNetwork,
    overlay: config.validationOverlay
  })
  if (sandbox.active) {
    const overlay = sandbox.overlays ? ', on an overlay of the work tree' : ''
    logger.info(`Validation runs in a sandbox (${sandbox.backend}${overlay}).`)
    if (config.validationNetwork === 'open')
      logger.warn(
        "validation-network: open: validation, fix and hook commands (code the model wrote) can reach the network and the host's abstract unix sockets. Install dependencies with setup-commands and leave validation-network closed where you can."
      )
    return sandbox
  }
  const why = sandbox.unavailable.join('; ')
  const fix =
    'Install bubblewrap (`sudo apt-get install -y bubblewrap`, e.g. in a step before this one), run on a Linux runner with passwordless sudo, or set `sandbox: off` to run model-written code with the powers of this step on purpose.'
  // On a runner, auto fails closed: model-written code never runs bare there unless told.
  const onRunner = facts.vars.GITHUB_ACTIONS === 'true'
  if (config.sandbox === 'required' || onRunner)
    throw new SecurityViolationError(
      `No sandbox works on this machine (${why}); ${config.sandbox === 'required' ? 'sandbox: required' : 'sandbox: auto on GitHub Actions'} refuses to run model-written code without one. ${fix}`,
      { rule: 'sandbox-unavailable', tried: sandbox.unavailable }
    )
  logger.warn(
    `No sandbox works on this machine (${why}): validation commands run with the powers of this step. Install bubblewrap, or set sandbox: required to refuse such runs.`
  )
  return sandbox
}

/** Which backends to try (tests narrow it, e.g. "unshare" or "none"); all by default. */
function backendChoice(text: string | undefined): readonly BackendName[] {
  if (!text) return BACKENDS
  const names = text.split(',').map((name) => name.trim())
  return BACKENDS.filter((backend) => names.includes(backend))
}

/** With `git-hooks: true` and a sandbox, the hooks run in it (Git.hookJail). */
export function jailHooks(
  git: Git,
  config: RunConfig,
  sandbox: Sandbox | undefined,
  vars: RunnerFacts['vars']
): void {
  if (config.gitHooks && sandbox?.active)
    git.hookJail = { sandbox, env: validationEnv(vars, config.validationEnv) }
}

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
