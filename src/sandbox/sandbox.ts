import { execFile } from 'node:child_process'
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  attributeFilterProgram,
  writeAttributeFilter,
  type JailFilter
} from './attribute-filter.js'
import { unavailableReason, type SandboxBackend } from './backend.js'
import { BACKENDS, backendNamed, type BackendName } from './backends.js'
import {
  shellQuote,
  startedInJail,
  startRaced,
  taskLimit,
  type Caller,
  type Programs,
  type SpawnSpec
} from './jail-command.js'
import { gitFileCovers, type GitFileCover } from './git-config.js'
import { jailEnvironment } from './environment.js'
import { jailPlan, tasksOf } from './jail-plan.js'
import { findPrograms, PROBE_TIMEOUT_MS } from './programs.js'
import { contains, type SandboxLayout } from './layout.js'
import { TreeOverlay } from './overlay.js'
import type { CarryRule } from './overlay-merge.js'

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const
export const NETWORK_MODES = ['closed', 'open'] as const
export type NetworkMode = (typeof NETWORK_MODES)[number]

interface SandboxOptions {
  /** Whether commands get the host's network (default: closed, loopback only). */
  network?: NetworkMode
  /** Most processes and threads a command may have at once. */
  maxTasks?: number
  /** Validation may run on an overlay of the work tree where one works (default: true). */
  overlay?: boolean
}

interface SpawnOptions {
  /** Git's folders writable: git itself running the repository's hooks. */
  gitWritable?: boolean
  /** This command's network, over the sandbox's (setup commands: open). */
  network?: NetworkMode
  /** The work tree as this overlay (validation): the command writes into its upper folder. */
  overlay?: TreeOverlay
  /** The work tree read-only (the hooked commit where no overlay can take its writes). */
  treeReadOnly?: boolean
}

// Proves the jail, not just the program: the work tree writable, .git not, a fresh PID space,
// sysctls read-only.
const PROBE =
  'test -w . && ! test -w "$1" && test "$$" -le 4 && ! test -w /proc/sys/kernel/core_pattern'

/**
 * Where the commands Patchsmith runs for the repository run: in a sandbox chosen once per run
 * (the first backend that proves itself on this machine), or bare when there is none.
 */
export class Sandbox {
  private constructor(
    /** The backend in use, or undefined: none. */
    private readonly strategy?: SandboxBackend<BackendName>,
    private readonly layout?: SandboxLayout,
    private readonly programs: Programs = {},
    private readonly privateDir?: string,
    /** Why each backend was not used, for the log when none is. */
    readonly unavailable: readonly string[] = [],
    private readonly options: SandboxOptions = {},
    private readonly gitFiles: readonly GitFileCover[] = [],
    /** Whether the work tree can be an overlay for a command here (the probe proved it). */
    private overlaysProved = false
  ) {}

  private overlayCount = 0
  /** The seccomp filter every command runs under (attribute-filter.ts). */
  private filter?: JailFilter

  static none(unavailable: readonly string[] = []): Sandbox {
    return new Sandbox(undefined, undefined, {}, undefined, unavailable)
  }

  /** The first of `candidates` that runs a probe correctly inside `layout`, else none. */
  static async open(
    layout: SandboxLayout,
    candidates: readonly BackendName[] = BACKENDS,
    options: SandboxOptions = {}
  ): Promise<Sandbox> {
    const programs = await findPrograms([layout.workTree, ...layout.gitDirs])
    const reasons: string[] = []
    const root = process.getuid?.() === 0
    for (const backend of candidates.map(backendNamed)) {
      const missing =
        unavailableReason(backend, programs, root) ??
        (attributeFilterProgram() ? undefined : `no attribute filter for ${process.arch}`)
      if (missing) {
        reasons.push(`${backend.name}: ${missing}`)
        continue
      }
      const privateDir = privateFolder()
      const gitFiles = gitFileCovers(layout.gitDirs, join(privateDir, 'git'), programs.git)
      const sandbox = new Sandbox(backend, layout, programs, privateDir, [], options, gitFiles)
      sandbox.filter = writeAttributeFilter(privateDir)
      // The probe in an overlay first: passing, it proves both; failing, the jail alone is tried.
      const overlay =
        options.overlay === false
          ? undefined
          : TreeOverlay.create(join(privateDir, 'overlay-probe'), layout.workTree, programs)
      sandbox.overlaysProved = !!overlay && !(await sandbox.probe(overlay))
      overlay?.dispose()
      const failure = sandbox.overlaysProved ? undefined : await sandbox.probe()
      if (!failure) return sandbox
      sandbox.dispose()
      reasons.push(`${backend.name}: ${failure}`)
    }
    return Sandbox.none(reasons)
  }

  /** git processes it started: one `git config --list` for each config file it sanitized. */
  get gitProcesses(): number {
    return this.gitFiles.filter((cover) => cover.source !== undefined).length
  }

  /** The backend in use, or 'none'. */
  get backend(): BackendName | 'none' {
    return this.strategy?.name ?? 'none'
  }

  get active(): boolean {
    return !!this.strategy
  }

  /**
   * A fresh overlay of the work tree for the validation commands of one attempt, where the
   * probe proved one; `keep`: repository paths a merge never deletes (Patchsmith's own).
   */
  overlay(keep: readonly string[] = [], carry?: CarryRule): TreeOverlay | undefined {
    if (!this.layout || !this.privateDir || !this.overlaysProved) return undefined
    const folder = join(this.privateDir, `overlay-${++this.overlayCount}`)
    return TreeOverlay.create(folder, this.layout.workTree, this.programs, keep, carry)
  }

  /**
   * For git with the repository's hooks: an overlay of the work tree with `.git` written
   * through, where the probe proved one and `.git` is a folder of the work tree (git's folders
   * lie nowhere else in it). What the hooks write in the tree is dropped with the overlay.
   */
  hookOverlay(): TreeOverlay | undefined {
    const layout = this.layout
    if (!layout || !this.privateDir || !this.overlaysProved) return undefined
    const git = join(layout.workTree, '.git')
    const inTree = layout.gitDirs.filter((dir) => contains(layout.workTree, dir))
    if (
      inTree.some((dir) => dir !== git) ||
      !lstatSync(git, { throwIfNoEntry: false })?.isDirectory()
    )
      return undefined
    const folder = join(this.privateDir, `overlay-${++this.overlayCount}`)
    return TreeOverlay.create(folder, layout.workTree, this.programs, [], undefined, git)
  }

  /** Validation commands here run on an overlay of the work tree (the probe proved one). */
  get overlays(): boolean {
    return this.overlaysProved
  }

  /** The network commands get unless told otherwise. */
  get network(): NetworkMode {
    return this.active ? (this.options.network ?? 'closed') : 'open'
  }

  /** How the task limit holds here (none as root before Linux 6.14, or without a sandbox). */
  get taskLimit(): 'pid-namespace' | 'rlimit' | 'none' {
    if (!this.strategy) return 'none'
    const root = process.getuid?.() === 0 && !this.strategy.viaSudo
    return taskLimit(root)
  }

  /**
   * The program, arguments and environment that run `command` (through `sh -c`) here. Git's
   * folders stay writable only for git itself running the repository's hooks.
   */
  spawnSpec(
    command: string,
    cwd: string,
    env: Record<string, string>,
    options: SpawnOptions = {}
  ): SpawnSpec {
    if (!this.strategy || !this.layout) return { file: '/bin/sh', args: ['-c', command], env }
    const spec = this.jailSpec(command, cwd, env, options)
    return options.overlay ? options.overlay.wrap(spec) : spec
  }

  private jailSpec(
    command: string,
    cwd: string,
    env: Record<string, string>,
    options: SpawnOptions
  ): SpawnSpec {
    const layout = this.layout!
    const plan = jailPlan(layout, this.gitFiles, {
      gitWritable: options.gitWritable,
      treeReadOnly: options.treeReadOnly,
      network: options.network ?? this.network,
      maxTasks: this.options.maxTasks
    })
    const stash = join(this.privateDir!, 'stash')
    const { host, restore } = jailEnvironment(env)
    const job = { programs: this.programs, plan, stash, cwd, filter: this.filter }
    const spec = { ...job, command: restore + command, env: host, caller: currentCaller() }
    return this.strategy!.spec(spec)
  }

  /** Removes the private folder (sanitized git config, the unshare backends' stash). */
  dispose(): void {
    if (this.privateDir) rmSync(this.privateDir, { recursive: true, force: true })
  }

  /** Why the probe failed, or undefined; made again while its jail fails to start by a race. */
  private probe(overlay?: TreeOverlay): Promise<string | undefined> {
    return startedInJail(() => this.probeOnce(overlay))
  }

  private probeOnce(
    overlay?: TreeOverlay
  ): Promise<{ result: string | undefined; raced: boolean }> {
    const layout = this.layout!
    const gitDir = layout.gitDirs[0] ?? join(layout.workTree, '.git')
    const probe = PROBE.replace('"$1"', shellQuote(gitDir))
    const spec = this.spawnSpec(
      probe,
      layout.workTree,
      { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
      {
        overlay
      }
    )
    return new Promise((resolve) => {
      execFile(
        spec.file,
        spec.args,
        { env: spec.env, cwd: layout.workTree, timeout: PROBE_TIMEOUT_MS },
        (error, stdout, stderr) => {
          if (!error) return resolve({ result: undefined, raced: false })
          const text = String(stderr).trim().split('\n').slice(-1)[0]
          const code = typeof error.code === 'number' ? error.code : null
          resolve({
            result: text || `probe failed (${error.code ?? error.signal ?? 'error'})`,
            raced: startRaced(spec, code, String(stdout), String(stderr))
          })
        }
      )
    })
  }
}

/** This process's user, and (not root) how many tasks it has: RLIMIT_NPROC counts them. */
function currentCaller(): Caller {
  const uid = process.getuid?.() ?? 0
  return { uid, gid: process.getgid?.() ?? 0, tasks: uid === 0 ? 0 : tasksOf(uid) }
}

function privateFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'patchsmith-sandbox-'))
  mkdirSync(join(dir, 'stash'))
  mkdirSync(join(dir, 'git'))
  // The jail's user reads the sanitized config from here (root when through sudo mounts it).
  chmodSync(dir, 0o711)
  chmodSync(join(dir, 'git'), 0o711)
  return dir
}
