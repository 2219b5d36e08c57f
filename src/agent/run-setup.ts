import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { RunConfig } from '../config.js'
import { SecurityViolationError } from '../contract/index.js'
import { gitDirs, type Git } from '../git/index.js'
import { RunBudget } from '../model/index.js'
import {
  BACKENDS,
  hiddenFolders,
  Sandbox,
  validationEnv,
  type BackendName
} from '../sandbox/index.js'
import { SecretMasker } from '../validation/index.js'
import type { Logger } from './logger.js'
import { PhaseClock } from './phase-clock.js'

export interface RunSetup {
  clock: PhaseClock
  budget: RunBudget
  masker: SecretMasker
  /** The caller's logger behind the masker. */
  logger: Logger
  repoDir: string
  outputPath: string
  logDir: string
}

/**
 * What every run starts with, whatever it runs (one plan, a task file): the clock, the budgets,
 * every secret registered and masked, and where the result and the attempt logs go.
 */
export function startRun(
  config: RunConfig,
  env: { logger: Logger; onSecret?: (value: string) => void; cancel?: AbortSignal }
): RunSetup {
  const masker = SecretMasker.forRun({
    apiKey: config.apiKey,
    githubToken: config.githubToken,
    env: process.env
  })
  for (const value of masker.values()) env.onSecret?.(value)
  return {
    clock: new PhaseClock(),
    budget: new RunBudget(
      {
        maxAttempts: config.maxAttempts,
        maxTotalTokens: config.maxTotalTokens,
        timeLimitMs: config.timeLimit * 1000
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
    repoDir: resolve(config.repo),
    outputPath: config.outputPath ? resolve(config.outputPath) : defaultOutputPath(),
    logDir: config.logDir ? resolve(config.logDir) : defaultLogDir()
  }
}

function runnerTemp(): string {
  const temp = process.env.RUNNER_TEMP
  return temp && isAbsolute(temp) ? temp : tmpdir()
}

function defaultOutputPath(): string {
  return join(runnerTemp(), 'patchsmith', 'result.json')
}

/** A fresh folder per run, outside the work tree, so logs are never committed. */
function defaultLogDir(): string {
  return join(
    runnerTemp(),
    'patchsmith',
    `logs-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`
  )
}

/**
 * The run's sandbox, chosen once before any model call: `required` refuses a machine without
 * one, `auto` says so in the log (and the summary, through the metrics).
 */
export async function openSandbox(config: RunConfig, setup: RunSetup): Promise<Sandbox> {
  const { repoDir, logger, outputPath, logDir } = setup
  if (config.sandbox === 'off') {
    logger.warn('sandbox: off: validation commands run with the powers of this step.')
    return Sandbox.none(['sandbox: off'])
  }
  // No repository there: loading refuses the run with the right error before anything runs.
  if (!existsSync(join(repoDir, '.git'))) return Sandbox.none(['no repository'])
  const layout = {
    workTree: repoDir,
    gitDirs: gitDirs(repoDir),
    hidden: hiddenFolders(process.env, repoDir, [dirname(outputPath), logDir])
  }
  const sandbox = await Sandbox.open(layout, backendChoice(process.env.PATCHSMITH_SANDBOX_BACKENDS))
  if (sandbox.active) {
    logger.info(`Validation runs in a sandbox (${sandbox.backend}).`)
    return sandbox
  }
  const why = sandbox.unavailable.join('; ')
  if (config.sandbox === 'required')
    throw new SecurityViolationError(
      `No sandbox works on this machine (${why}); sandbox: required refuses to run model-written code without one. Install bubblewrap (apt-get install bubblewrap) or run on a Linux runner with passwordless sudo.`,
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
export function jailHooks(git: Git, config: RunConfig, sandbox: Sandbox | undefined): void {
  if (config.gitHooks && sandbox?.active)
    git.hookJail = { sandbox, env: validationEnv(process.env, config.validationEnv) }
}
