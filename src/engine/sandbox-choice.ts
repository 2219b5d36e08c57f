import { existsSync, realpathSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { RunConfig } from '../config.js'
import { SecurityViolationError } from '../contract/index.js'
import { gitDirs } from '../git/index.js'
import { journalKeyFolder } from '../run-state/index.js'
import {
  BACKENDS,
  installAdvice,
  jailLayout,
  contains,
  multiLinkedIn,
  separate,
  Sandbox,
  type BackendName
} from '../sandbox/index.js'
import type { Logger, RunnerFacts } from '../run/index.js'

/**
 * The run's sandbox, chosen once before any model call: `required` refuses a machine without
 * one, `auto` says so in the log (and the summary, through the metrics).
 */
export async function openSandbox(
  config: RunConfig,
  run: {
    repoDir: string
    logger: Logger
    /** Folders hidden in the jail: the run's outputs and its attempt logs. */
    outputFolders: readonly string[]
    logDir: string
    vars: RunnerFacts['vars']
  }
): Promise<Sandbox> {
  const { repoDir, logger, outputFolders, logDir, vars } = run
  if (config.sandbox === 'off') {
    logger.warn('sandbox: off: validation commands run with the powers of this step.')
    return Sandbox.none(['sandbox: off'])
  }
  // No repository there: loading refuses the run with the right error before anything runs.
  if (!existsSync(join(repoDir, '.git'))) return Sandbox.none(['no repository'])
  const layout = jailLayout(vars, repoDir, gitDirs(repoDir), [
    ...outputFolders,
    logDir,
    journalKeyFolder()
  ])
  const backends = backendChoice(vars.PATCHSMITH_SANDBOX_BACKENDS)
  const sandbox = await Sandbox.open(layout, backends, {
    network: config.validationNetwork,
    overlay: config.validationOverlay
  })
  if (sandbox.active) {
    separateLinks(repoDir, sandbox, logger)
    const overlay = sandbox.overlays ? ', on an overlay of the work tree' : ''
    logger.info(`Validation runs in a sandbox (${sandbox.backend}${overlay}).`)
    if (config.validationNetwork === 'open')
      logger.warn(
        "validation-network: open: validation, fix and hook commands (code the model wrote) can reach the network and the host's abstract unix sockets. Install dependencies with setup-commands and leave validation-network closed where you can."
      )
    return sandbox
  }
  const why = sandbox.unavailable.join('; ')
  const fix = `${installAdvice()}, or set \`sandbox: off\` to run model-written code with the powers of this step on purpose.`
  // On a runner, auto fails closed: model-written code never runs bare there unless told.
  const onRunner = vars.GITHUB_ACTIONS === 'true'
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

/**
 * What commands may rewrite in place holds no file of more than one name: the work tree where
 * commands run on it (no overlay), and git's folders, which the hooked commit writes through
 * even on an overlay (but for the read-only object store). A file with another name, outside
 * (a setup step's hard link into a PATH folder, pnpm's store, a shared hook), would be
 * rewritten there too, and a later step, or git's own ssh at the push, would run it (attack
 * rounds 24 and 25). Each becomes a copy of its own before any command runs; where one cannot,
 * or a folder hides what it holds, the run is refused.
 */
function separateLinks(repoDir: string, sandbox: Sandbox, logger: Logger): void {
  try {
    separateLinksIn(repoDir, sandbox.overlays, logger)
  } catch (error) {
    sandbox.dispose()
    throw error
  }
}

function separateLinksIn(repoDir: string, overlays: boolean, logger: Logger): void {
  const gitFolders = gitDirs(repoDir)
  const searches = [
    ...(overlays
      ? []
      : [
          multiLinkedIn(
            repoDir,
            gitFolders.filter((dir) => contains(repoDir, dir))
          )
        ]),
    ...gitFolders.map((dir) => multiLinkedIn(dir, [join(dir, 'objects')]))
  ]
  const paths = searches.flatMap((search) => search.paths)
  const unlisted = searches.find((search) => search.unlisted)?.unlisted
  const { copied, failed = unlisted } = unlisted ? { copied: 0 } : separate(paths)
  if (failed !== undefined) {
    const path = relative(realpathSync.native(repoDir), failed)
    throw new SecurityViolationError(
      `A file of the work tree or of git's folder may have another name elsewhere (a hard link), and could not be made a copy of its own (${path}: ${paths.includes(failed) ? 'the copy failed' : 'a folder this user cannot list, though it can search it'}); a command could rewrite that file where its other name is too. Copy it instead of linking it (cp, not ln or cp -l), make the folder readable, or run as root with validation-overlay: true, where commands write to an overlay.`,
      { rule: 'hard-link-outside-tree', path }
    )
  }
  if (copied > 0)
    logger.info(
      `${copied} file(s) of the work tree or of git's folder had more than one name (hard links, such as pnpm's store or a setup step's ln): each is now a copy of its own, so no command rewrites a file elsewhere${copied < paths.length ? `; ${paths.length - copied} more no command here can write were left` : ''}.`
    )
}

/** Which backends to try (tests narrow it, e.g. "unshare" or "none"); all by default. */
function backendChoice(text: string | undefined): readonly BackendName[] {
  if (!text) return BACKENDS
  const names = text.split(',').map((name) => name.trim())
  return BACKENDS.filter((backend) => names.includes(backend))
}
