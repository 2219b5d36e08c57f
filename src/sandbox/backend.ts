import type { JailFilter } from './attribute-filter.js'
import type { Caller, Programs, SpawnSpec } from './jail-command.js'
import type { JailPlan } from './jail-plan.js'

/** A program a backend runs (found once per run, outside the jail). */
type ProgramName = Exclude<keyof Programs, 'bwrapOptions'>

/** Everything a backend needs to wrap one command in the jail. */
export interface JailJob {
  programs: Programs
  plan: JailPlan
  /** A folder of this sandbox's on the host (the unshare backends' stash). */
  stash: string
  command: string
  cwd: string
  env: Record<string, string>
  caller: Caller
  /** The seccomp filter every command runs under, where this host's numbers are known. */
  filter?: JailFilter
}

/**
 * One way to build the jail, whole: what it needs on this machine and how it wraps a command in
 * the plan's mounts. A new backend is a strategy beside the others and one line in the registry
 * (backends.ts); nothing else names a backend.
 */
export interface SandboxBackend<Name extends string = string> {
  name: Name
  /** The programs it runs, in the order a missing one is named. */
  needs: readonly ProgramName[]
  /** Who must run Patchsmith: root (it makes the mounts itself) or another user (through sudo). */
  runsAs?: 'root' | 'user'
  /** How a user gets it working, as a clause of the advice when no sandbox works. */
  install?: string
  /** The mounts are made as root through sudo; the command drops back to the caller's user. */
  viaSudo: boolean
  /** Why it cannot work on this machine whatever is installed (its architecture), or undefined. */
  unsupported?: () => string | undefined
  /** The program, arguments and environment that run the job's command in its jail. */
  spec(job: JailJob): SpawnSpec
}

/** Why `backend` cannot work here (a program missing, the wrong user), or undefined when it can. */
export function unavailableReason(
  backend: SandboxBackend,
  programs: Programs,
  root: boolean
): string | undefined {
  if (backend.runsAs === 'user' && root) return 'not needed as root'
  const missing = backend.needs.find((program) => !programs[program])
  if (missing) return `no ${missing}`
  if (backend.runsAs === 'root' && !root) return 'not running as root'
  return backend.unsupported?.()
}
