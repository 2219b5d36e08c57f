import { distrusted, trustedOnHost } from '../sandbox/index.js'
import { findInPath } from '@actions/io'
import { assertNoEndlessSources, attributeAndIgnoreSources } from './endless-sources.js'
import { gitEnv } from './git-env.js'
import { gitProcess } from './git-process.js'
import { identityFallbackConfig } from './identity.js'
import { persistedHeaderKey } from './push-auth.js'
import {
  CONFIG_LIST,
  configFiles,
  configParameters,
  digestOf,
  driverSeal,
  fileHashes,
  parseConfigList,
  relistsAlways,
  persistedCredentials,
  repositoryEntries,
  repositoryPrograms,
  STATIC_SEAL,
  type ConfigEntry
} from './repo-config.js'

// Repository config and hooks can be written by code the model wrote; none of it may run here.
export const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false']
export const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null']

let onPath: Promise<string[]> | undefined
const programs = new Map<string, Promise<string>>()

/**
 * git's absolute path, from one PATH lookup: a folder on PATH that validation commands can
 * write (node_modules/.bin, say) cannot put another `git` in front of the push, and no later
 * command searches PATH again.
 */
export function gitProgram(workTree?: string): Promise<string> {
  // Never through a relative PATH entry: it names a folder of the work tree (the working
  // directory of every git command), where validation writes. Nor an absolute one into the
  // repository worked on, or a checkout the run starts in or names (a workflow's
  // `$GITHUB_WORKSPACE/bin`): a committed `bin/git` would run on the host, and validation
  // could rewrite it (attack round 14).
  const folders = workTree ? [workTree] : []
  const key = distrusted(folders).join('\0')
  onPath ??= findInPath('git')
  let program = programs.get(key)
  if (!program) {
    program = onPath.then((paths) => {
      const found = paths.find((path) => trustedOnHost(path, folders))
      if (!found) throw new Error('Unable to locate git in an absolute folder of PATH.')
      return found
    })
    programs.set(key, program)
  }
  return program
}

interface Seal {
  entries: ConfigEntry[]
  pairs: Array<[string, string]>
}

/**
 * The effective config's program keys, emptied for every command: listed again (one
 * `git config --list`) only when a file it depends on changed (the repository's config, every
 * file it includes, HEAD for `onbranch:` includes).
 */
export class ConfigSeal {
  private sealed?: { digest: string; seal: Promise<Seal> }
  private lastEntries: ConfigEntry[] = []

  constructor(
    private readonly dir: string,
    /** Called for each process the seal starts, so the run's count includes them. */
    private readonly started: () => void
  ) {}

  get(): Promise<Seal> {
    const hashes = fileHashes(configFiles(this.dir, this.lastEntries))
    // Before git reads them: one that never ends would hold `git config --list` forever.
    assertNoEndlessSources(
      [...hashes].flatMap(([file, hash]) => (hash === 'special' ? [file] : []))
    )
    const digest = digestOf(hashes)
    if (this.sealed?.digest === digest) return this.sealed.seal
    const sealed: { digest: string; seal?: Promise<Seal> } = { digest }
    sealed.seal = this.read(hashes, sealed)
    this.sealed = sealed as { digest: string; seal: Promise<Seal> }
    return sealed.seal
  }

  /**
   * What actions/checkout left in the repository's config (`persist-credentials: true`), and
   * the program keys the repository sets (neutralised here), for the start of a run's log.
   */
  async report(): Promise<{ credentials: string[]; programs: string[] }> {
    const { entries } = await this.get()
    return { credentials: persistedCredentials(entries), programs: repositoryPrograms(entries) }
  }

  /** GIT_CONFIG_PARAMETERS: the caller's own config parameters first, then the seal's, which win. */
  static parameters(seal: Seal, env: Record<string, string> | undefined): string {
    return configParameters(
      env?.GIT_CONFIG_PARAMETERS ?? process.env.GIT_CONFIG_PARAMETERS,
      seal.pairs
    )
  }

  /** One `git config --list`; its files hashed before it ran, so no change in between is lost. */
  private async read(
    before: ReadonlyMap<string, string>,
    sealed: { digest: string }
  ): Promise<Seal> {
    this.started()
    const args = [...SAFE_CONFIG, ...NO_HOOKS, ...CONFIG_LIST]
    const output = await gitProcess(await gitProgram(this.dir), args, {
      cwd: this.dir,
      silent: true,
      ignoreReturnCode: true,
      env: {
        ...gitEnv(process.env, false, this.dir),
        GIT_CONFIG_NOSYSTEM: '1',
        LC_ALL: 'C',
        GIT_CONFIG_GLOBAL: identityFallbackConfig(process.env)
      }
    })
    // A config git cannot read fails the command that follows in the same way.
    const entries = output.exitCode === 0 ? parseConfigList(output.stdout, this.dir) : []
    this.lastEntries = entries
    // Files the listing named that were not hashed before it: the user's global ones are hashed
    // now; one of the repository's means it is listed again before the next command.
    const mine = new Set(configFiles(this.dir, repositoryEntries(entries)))
    const hashes = new Map(before)
    const unseen = configFiles(this.dir, entries).filter((file) => !before.has(file))
    fileHashes(unseen).forEach((hash, file) => hashes.set(file, hash))
    const stale = unseen.some((file) => mine.has(file)) || relistsAlways(entries)
    sealed.digest = stale ? 'stale' : digestOf(hashes)
    assertNoEndlessSources(attributeAndIgnoreSources(this.dir, entries))
    return { entries, pairs: [...STATIC_SEAL, ...driverSeal(entries, this.dir)] }
  }
}

/**
 * The header keys a repository may set at a remote command: actions/checkout's for the
 * workflow's server, and those this command's own environment config sets again (the push's
 * header, scoped to its server: the same key, so it replaces the persisted one).
 */
export function headerKeys(env: Record<string, string> | undefined): string[] {
  const own = Object.entries(env ?? {})
    .filter(([name]) => /^GIT_CONFIG_KEY_\d+$/.test(name))
    .map(([, key]) => key)
  return [persistedHeaderKey(), ...own]
}
