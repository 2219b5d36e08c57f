import { statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { RunConfig } from '../config.js'
import { InvalidInputError } from '../contract/index.js'
import { checkOutputPath } from '../report/index.js'
import { scratchFolder, type RunnerFacts } from '../run/index.js'

/** Where a run writes, settled before anything else is read or changed. */
interface RunOutputs {
  repoDir: string
  outputPath: string
  /** Folders the run's outputs go to (the result's, the CLI's pull-request body's): hidden in the jail. */
  outputFolders: string[]
  logDir: string
}

/**
 * The result file and the attempt logs (in the scratch folder unless told), each checked before
 * the run starts, as are the other files the entry writes once the run ends.
 */
export function runOutputs(
  config: RunConfig,
  vars: RunnerFacts['vars'],
  outputFiles: ReadonlyArray<{ path: string; field: string }> = []
): RunOutputs {
  let scratch: string | undefined
  const repoDir = resolve(config.repo)
  const outputPath = config.outputPath
    ? resolve(config.outputPath)
    : join((scratch ??= scratchFolder(vars, { repoDir })), 'result.json')
  const logDir = config.logDir
    ? resolve(config.logDir)
    : defaultLogDir((scratch ??= scratchFolder(vars, { repoDir })))
  checkOutputPath(outputPath, 'output-path')
  for (const file of outputFiles) checkOutputPath(file.path, file.field)
  checkLogDir(logDir)
  const outputFolders = [outputPath, ...outputFiles.map((file) => file.path)].map((path) =>
    dirname(path)
  )
  return { repoDir, outputPath, outputFolders, logDir }
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
