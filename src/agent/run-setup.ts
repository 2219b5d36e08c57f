import { tmpdir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import type { RunConfig } from '../config.js'
import { RunBudget } from '../model/index.js'
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
  env: { logger: Logger; onSecret?: (value: string) => void }
): RunSetup {
  const masker = SecretMasker.forRun({
    apiKey: config.apiKey,
    githubToken: config.githubToken,
    env: process.env
  })
  for (const value of masker.values()) env.onSecret?.(value)
  return {
    clock: new PhaseClock(),
    budget: new RunBudget({
      maxAttempts: config.maxAttempts,
      maxTotalTokens: config.maxTotalTokens,
      timeLimitMs: config.timeLimit * 1000
    }),
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
