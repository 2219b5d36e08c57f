import { perlLoader, type JailFilter } from './attribute-filter.js'
import {
  bounding,
  JAIL_SETUP_FAILED,
  limitPrefix,
  namespacePidMax,
  type Caller,
  type Programs,
  type SpawnSpec
} from './jail-command.js'
import { PROC_COVERS, type JailMount, type JailPlan } from './jail-plan.js'
import {
  MS_NODEV,
  MS_NOEXEC,
  MS_NOSUID,
  MS_RDONLY,
  REMOUNT_FAILED,
  setupArgv,
  setupUnsupported,
  type SetupStep
} from './unshare-setup.js'
import { contains } from './layout.js'
import type { JailJob, SandboxBackend } from './backend.js'

const unshareJob = (job: JailJob, viaSudo: boolean) =>
  unshareSpec(
    job.programs,
    job.plan,
    job.stash,
    job.command,
    job.cwd,
    job.env,
    viaSudo,
    job.caller,
    job.filter
  )

/** util-linux `unshare` run as root: the mounts made by a shell, the command kept as root. */
export const unshare: SandboxBackend<'unshare'> = {
  name: 'unshare',
  // perl and env: the attribute filter's loader (attribute-filter.ts); the jail never runs without.
  needs: ['unshare', 'setpriv', 'perl', 'env'],
  runsAs: 'root',
  viaSudo: false,
  unsupported: setupUnsupported,
  spec: (job) => unshareJob(job, false)
}

/** util-linux `unshare` for another user with passwordless sudo (GitHub-hosted runners). */
export const sudoUnshare: SandboxBackend<'sudo-unshare'> = {
  name: 'sudo-unshare',
  needs: ['unshare', 'sudo', 'setpriv', 'perl', 'env'],
  runsAs: 'user',
  install: 'run on a Linux runner with passwordless sudo',
  viaSudo: true,
  unsupported: setupUnsupported,
  spec: (job) => unshareJob(job, true)
}

/**
 * util-linux `unshare`: the plan's mounts made by one perl process (unshare-setup.ts) in new PID,
 * mount, IPC, UTS and (unless opened) network namespaces (bubblewrap does this in C). Sources a
 * later tmpfs would hide are bound into a private stash first and moved into place through a
 * descriptor. As a user with passwordless sudo (GitHub-hosted runners), the mounts are made as
 * root and the command drops back to the caller's user and primary group, without the
 * supplementary ones (the docker group).
 */
export function unshareSpec(
  programs: Programs,
  plan: JailPlan,
  /** A folder of this sandbox's on the host (the stash's mount point). */
  stash: string,
  command: string,
  cwd: string,
  env: Record<string, string>,
  viaSudo: boolean,
  caller: Caller,
  filter?: JailFilter
): SpawnSpec {
  const steps: SetupStep[] = []
  if (plan.network === 'closed' && programs.ip) steps.push(['lo', programs.ip])
  // /dev/null is bound straight from the jail's own /dev; anything else through the stash.
  const stashed = (m: JailMount) => m.type === 'bind' && m.source !== '/dev/null'
  const binds = plan.mounts.flatMap((m, index) =>
    m.type === 'bind' && stashed(m) ? [{ ...m, index }] : []
  )
  steps.push(['tmpfs', stash, 0, 'size=1m,mode=0700', 'patchsmith-stash'])
  steps.push(['mkdir', `${stash}/dev`], ['bind', '/dev', `${stash}/dev`])
  for (const bind of binds) {
    const slot = `${stash}/${bind.index}`
    // Read-only as bound: the move keeps it so.
    steps.push([bind.file ? 'touch' : 'mkdir', slot], ['bind', bind.source, slot])
    if (!bind.writable) steps.push(['ro', slot])
  }
  steps.push(['stash', stash], ...privateDev())
  // An emptied folder nothing is mounted in is made read-only at once.
  const sealed = (index: number) => {
    const m = plan.mounts[index]!
    return (
      m.type === 'tmpfs' && m.mode !== '1777' && !plan.mounts.slice(index + 1).some(inside(m.path))
    )
  }
  const [uid, gid] = viaSudo ? [caller.uid, caller.gid] : [0, 0]
  plan.mounts.forEach((m, index) => {
    if (m.type === 'tmpfs') {
      const flags = (sealed(index) ? MS_RDONLY : 0) | MS_NOSUID | MS_NODEV
      steps.push(['tmpfs', m.path, flags, `size=${m.size},mode=${m.mode}`, 'patchsmith-jail'])
    } else if (m.type === 'dir') steps.push(['home', m.path, m.mode, uid, gid])
    // A host socket whose file went since the plan was made needs no cover (its daemon stopped):
    // a cover that fails on a path still there stops the jail.
    else if (m.ifPresent) steps.push(['cover', m.path])
    else {
      steps.push(['ensure', m.path, m.file ? 'file' : 'dir'])
      if (stashed(m)) steps.push(['move', `@stash/${index}`, m.path])
      else steps.push(['bind', '/dev/null', m.path], ['ro', m.path])
    }
  })
  // The stash holds the host's /dev: detached once everything is moved out of it, through the
  // descriptor (its path may lie under a tmpfs now, or in sight of the jail).
  steps.push(['umount', '@stash/dev'], ['umount', '@stash'], ['unstash'])
  const pidMax = namespacePidMax(plan, !viaSudo)
  if (pidMax) steps.push(['write', '/proc/sys/kernel/pid_max', String(pidMax)])
  for (const name of PROC_COVERS) steps.push(['procro', `/proc/${name}`])
  // Every other mount read-only (a bind remount changes this namespace's copy only); /sys too.
  for (const m of plan.mounts) {
    if ((m.type === 'tmpfs' && m.mode === '1777') || (m.type === 'bind' && m.writable))
      steps.push(['keeptree', m.path])
  }
  // Twice: the first pass makes read-only what it can; the second stops the jail at a mount
  // still writable, unless its path now lies on a read-only one (a host mount the jail's
  // shadow, read-only only once the first pass is done): nothing runs beside a writable mount.
  steps.push(['seal'], ['chdir', cwd])
  // The filter's loader reads PERL_BADLANG (a locale this machine lacks would open every
  // command's output with perl's warning) and takes it away again; without one, it goes here.
  const loader = filter && programs.perl ? perlLoader(programs.perl, filter) : []
  if (!viaSudo && loader.length === 0) steps.push(['unset', 'PERL_BADLANG'])
  const fullEnv = { ...env, ...plan.env, PERL_BADLANG: '0' }
  const run = ['/bin/sh', '-c', command]
  // The mounts above need root; the command must not have its powers. No capabilities to regain
  // (a bounding set of ROOT_KEEPS as root, empty otherwise), and no setuid program may raise
  // them again (no_new_privs: a passwordless sudo inside the jail would otherwise undo it all).
  const powerless = [
    programs.setpriv ?? 'setpriv',
    '--no-new-privs',
    bounding(!viaSudo),
    '--inh-caps=-all'
  ]
  const limit = limitPrefix(programs, plan, viaSudo ? caller : { uid: 0, gid: 0 })
  const drop = viaSudo
    ? [...powerless, `--reuid=${caller.uid}`, `--regid=${caller.gid}`, '--clear-groups', '--']
    : [...powerless, '--']
  // sudo resets the environment: the allowlisted one is handed on explicitly (without
  // PERL_BADLANG where no loader takes it away).
  const handed = loader.length > 0 ? fullEnv : { ...env, ...plan.env }
  const envArgs = viaSudo
    ? [programs.env ?? 'env', '-i', ...Object.entries(handed).map(([k, v]) => `${k}=${v}`)]
    : []
  const setup = setupArgv(programs.perl ?? 'perl', steps, [
    ...limit,
    ...drop,
    ...envArgs,
    ...loader,
    ...run
  ])
  const unshare = [programs.unshare ?? 'unshare', '--pid', '--fork', '--mount', '--mount-proc']
  unshare.push('--ipc', '--uts', ...(plan.network === 'closed' ? ['--net'] : []))
  unshare.push('--kill-child', '--propagation', 'private', '--', ...setup)
  return viaSudo
    ? {
        file: programs.sudo ?? 'sudo',
        // sudo is setuid: the parent-death signal does not pass it, so it is set again behind
        // it. perl starts with an empty environment (sudo's own could hold a locale or PERL5*).
        args: [
          '-n',
          programs.setpriv ?? 'setpriv',
          '--pdeathsig',
          'KILL',
          '--',
          programs.env ?? 'env',
          '-i',
          ...unshare
        ],
        env: fullEnv
      }
    : { file: unshare[0]!, args: unshare.slice(1), env: fullEnv }
}

export { JAIL_SETUP_FAILED, REMOUNT_FAILED }

/** Device nodes a command may use, bound from the host's /dev (what bubblewrap's --dev shows). */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty']

/**
 * A /dev of the jail's own, as bubblewrap's --dev makes it: the host's (devtmpfs, writable by
 * root) is replaced by a tmpfs with the harmless nodes bound from the stash, a new devpts and
 * the usual links. The seal then makes it read-only; writing a device stays possible.
 */
function privateDev(): SetupStep[] {
  const steps: SetupStep[] = [
    ['tmpfs', '/dev', MS_NOSUID | MS_NOEXEC, 'size=1m,mode=0755', 'patchsmith-dev']
  ]
  for (const name of DEVICES)
    steps.push(['touch', `/dev/${name}`], ['bind', `@stash/dev/${name}`, `/dev/${name}`])
  for (const name of DEVICES) steps.push(['ro', `/dev/${name}`])
  steps.push(['mkdir', '/dev/pts'], ['mkdir', '/dev/shm'])
  steps.push(['devpts', '/dev/pts', 'newinstance,ptmxmode=0666,mode=0620'])
  const links = [
    ['pts/ptmx', '/dev/ptmx'],
    ['/proc/self/fd', '/dev/fd'],
    ['/proc/self/fd/0', '/dev/stdin'],
    ['/proc/self/fd/1', '/dev/stdout'],
    ['/proc/self/fd/2', '/dev/stderr']
  ] as const
  for (const [target, link] of links) steps.push(['symlink', target, link])
  return steps
}

function inside(folder: string): (mount: JailMount) => boolean {
  return (mount) => mount.path !== folder && contains(folder, mount.path)
}
