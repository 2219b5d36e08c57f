import { lstatSync } from 'node:fs'
import {
  bounding,
  limitPrefix,
  procLines,
  ROOT_KEEPS,
  shellQuote,
  taskLimit,
  type Caller,
  type Programs,
  type SpawnSpec
} from './jail-command.js'
import { PROC_COVERS, type JailPlan } from './jail-plan.js'
import type { SandboxBackend } from './backend.js'
import { withFilterFile, type JailFilter } from './attribute-filter.js'

/** bubblewrap, where installed: the jail built in C, as root or as any other user. */
export const bubblewrap: SandboxBackend<'bubblewrap'> = {
  name: 'bubblewrap',
  needs: ['bwrap'],
  install:
    'Install bubblewrap (`sudo apt-get install -y bubblewrap`, e.g. in a step before this one)',
  viaSudo: false,
  spec: (job) =>
    bubblewrapSpec(job.programs, job.plan, job.command, job.cwd, job.env, job.caller, job.filter)
}

/**
 * bubblewrap: new PID, IPC, UTS and (unless opened) network namespaces (loopback only; the
 * host's abstract unix sockets live in its network namespace), a read-only root, the plan's
 * mounts in order, /proc's writable parts read-only. As root the command keeps only
 * ROOT_KEEPS; the task limit is pid_max of its PID namespace, set by a short shell that still
 * has the powers to do so and then gives them up for good.
 */
export function bubblewrapSpec(
  programs: Programs,
  plan: JailPlan,
  command: string,
  cwd: string,
  env: Record<string, string>,
  caller: Caller,
  filter?: JailFilter
): SpawnSpec {
  const root = caller.uid === 0
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts']
  args.push('--new-session')
  if (plan.network === 'closed') args.push('--unshare-net')
  // The shell that sets pid_max and covers /proc needs mount and setpcap, then drops them.
  const wrapped = root && taskLimit(true) === 'pid-namespace' && !!programs.setpriv
  if (root) {
    // As root, bubblewrap keeps every capability unless told: with them the command could
    // remount .git writable or unmount what hides the runner's files.
    args.push('--cap-drop', 'ALL')
    const keep = [...ROOT_KEEPS, ...(wrapped ? ['sys_admin', 'setpcap'] : [])]
    for (const cap of keep) args.push('--cap-add', `CAP_${cap.toUpperCase()}`)
  }
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc')
  // The wrapping shell covers /proc/sys itself, after writing pid_max there.
  for (const name of PROC_COVERS)
    if (!wrapped || name !== 'sys') args.push('--ro-bind-try', `/proc/${name}`, `/proc/${name}`)
  const options = programs.bwrapOptions ?? { size: false, perms: false }
  const covers: string[] = []
  for (const mount of plan.mounts) {
    if (mount.type === 'tmpfs') {
      if (options.size) args.push('--size', String(mount.size))
      if (options.perms) args.push('--perms', mount.mode)
      args.push('--tmpfs', mount.path)
    } else if (mount.type === 'dir') {
      if (options.perms) args.push('--perms', mount.mode)
      args.push('--dir', mount.path)
    } else if (mount.ifPresent) {
      // A host socket whose file went since the plan was made needs no cover (and bubblewrap
      // could not make its mount point in the read-only root).
      if (lstatSync(mount.path, { throwIfNoEntry: false })) {
        args.push('--ro-bind-try', mount.source, mount.path)
        covers.push(mount.path)
      }
    } else args.push(mount.writable ? '--bind' : '--ro-bind', mount.source, mount.path)
  }
  args.push('--chdir', cwd, '--')
  const run = ['/bin/sh', '-c', command]
  if (wrapped) {
    const mount = programs.mount ?? 'mount'
    const drop = [
      ...limitPrefix(programs, plan, caller),
      programs.setpriv!,
      '--no-new-privs',
      bounding(true),
      '--inh-caps=-all',
      '--'
    ]
    const script = [
      'set -e',
      ...procLines(plan, true, shellQuote(mount), ['sys']),
      `exec ${drop.map(shellQuote).join(' ')} /bin/sh -c "$0"`
    ].join('\n')
    args.push('/bin/sh', '-c', script, command)
  } else args.push(...limitPrefix(programs, plan, caller), ...run)
  const program = filter ? withFilterFile(programs.bwrap!, args, filter) : undefined
  const file = program?.file ?? programs.bwrap!
  return { file, args: program?.args ?? args, env: { ...env, ...plan.env }, covers }
}
