import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { which } from '@actions/io'
import {
  BACKENDS,
  bubblewrapSpec,
  shellQuote,
  unshareSpec,
  type BackendName,
  type Programs,
  type SpawnSpec
} from './backends.js'
import type { SandboxLayout } from './layout.js'

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]

// Proves the jail, not just the program: the work tree writable, .git not, a fresh PID space.
const PROBE = 'test -w . && ! test -w "$1" && test "$$" -le 4'
const PROBE_TIMEOUT_MS = 15_000

/**
 * Where the commands Patchsmith runs for the repository run: in a sandbox chosen once per run
 * (the first backend that proves itself on this machine), or bare when there is none.
 */
export class Sandbox {
  private constructor(
    /** The backend in use, or 'none'. */
    readonly backend: BackendName | 'none',
    private readonly layout?: SandboxLayout,
    private readonly programs: Programs = {},
    private readonly privateTemp?: string,
    /** Why each backend was not used, for the log when none is. */
    readonly unavailable: readonly string[] = []
  ) {}

  static none(unavailable: readonly string[] = []): Sandbox {
    return new Sandbox('none', undefined, {}, undefined, unavailable)
  }

  /** The first of `candidates` that runs a probe correctly inside `layout`, else none. */
  static async open(
    layout: SandboxLayout,
    candidates: readonly BackendName[] = BACKENDS
  ): Promise<Sandbox> {
    const programs = await findPrograms()
    const reasons: string[] = []
    for (const backend of candidates) {
      const missing = missingProgram(backend, programs)
      if (missing) {
        reasons.push(`${backend}: ${missing}`)
        continue
      }
      const privateTemp = backend === 'bubblewrap' ? undefined : privateFolder()
      const sandbox = new Sandbox(backend, layout, programs, privateTemp)
      const failure = await sandbox.probe()
      if (!failure) return sandbox
      sandbox.dispose()
      reasons.push(`${backend}: ${failure}`)
    }
    return Sandbox.none(reasons)
  }

  get active(): boolean {
    return this.backend !== 'none'
  }

  /**
   * The program, arguments and environment that run `command` (through `sh -c`) here. Git's
   * folders stay writable only for git itself running the repository's hooks.
   */
  spawnSpec(
    command: string,
    cwd: string,
    env: Record<string, string>,
    options: { gitWritable?: boolean } = {}
  ): SpawnSpec {
    if (this.backend === 'none' || !this.layout)
      return { file: '/bin/sh', args: ['-c', command], env }
    const layout = {
      ...this.layout,
      gitDirs: options.gitWritable ? [] : this.layout.gitDirs,
      hidden: this.layout.hidden.filter((path) => existsSync(path))
    }
    if (this.backend === 'bubblewrap')
      return bubblewrapSpec(this.programs.bwrap!, layout, command, cwd, env)
    const viaSudo = this.backend === 'sudo-unshare'
    return unshareSpec(this.programs, layout, this.privateTemp!, command, cwd, env, viaSudo)
  }

  /** Removes the private temp folder (the unshare backends mount a fresh tmpfs on it). */
  dispose(): void {
    if (this.privateTemp) rmSync(this.privateTemp, { recursive: true, force: true })
  }

  private probe(): Promise<string | undefined> {
    const layout = this.layout!
    const gitDir = layout.gitDirs[0] ?? join(layout.workTree, '.git')
    const spec = this.spawnSpec(`${PROBE.replace('"$1"', shellQuote(gitDir))}`, layout.workTree, {
      PATH: '/usr/bin:/bin:/usr/sbin:/sbin'
    })
    return new Promise((resolve) => {
      execFile(
        spec.file,
        spec.args,
        { env: spec.env, cwd: layout.workTree, timeout: PROBE_TIMEOUT_MS },
        (error, _stdout, stderr) => {
          if (!error) return resolve(undefined)
          const text = String(stderr).trim().split('\n').slice(-1)[0]
          resolve(text || `probe failed (${error.code ?? error.signal ?? 'error'})`)
        }
      )
    })
  }
}

async function findPrograms(): Promise<Programs> {
  const find = async (name: string) => (await which(name, false)) || undefined
  const [bwrap, unshare, sudo, setpriv] = await Promise.all(
    ['bwrap', 'unshare', 'sudo', 'setpriv'].map(find)
  )
  return { bwrap, unshare, sudo, setpriv }
}

function missingProgram(backend: BackendName, programs: Programs): string | undefined {
  const root = process.getuid?.() === 0
  const need = (program: keyof Programs) => (programs[program] ? undefined : `no ${program}`)
  if (backend === 'bubblewrap') return need('bwrap')
  if (backend === 'unshare')
    return need('unshare') ?? need('setpriv') ?? (root ? undefined : 'not running as root')
  if (root) return 'not needed as root'
  return need('unshare') ?? need('sudo') ?? need('setpriv')
}

function privateFolder(): string {
  return mkdtempSync(join(tmpdir(), 'patchsmith-sandbox-'))
}
