import { perlLoader, type JailFilter } from './attribute-filter.js'
import {
  bounding,
  JAIL_SETUP_FAILED,
  limitPrefix,
  procLines,
  shellQuote,
  type Caller,
  type Programs,
  type SpawnSpec
} from './jail-command.js'
import type { JailMount, JailPlan } from './jail-plan.js'
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
  spec: (job) => unshareJob(job, false)
}

/** util-linux `unshare` for another user with passwordless sudo (GitHub-hosted runners). */
export const sudoUnshare: SandboxBackend<'sudo-unshare'> = {
  name: 'sudo-unshare',
  needs: ['unshare', 'sudo', 'setpriv', 'perl', 'env'],
  runsAs: 'user',
  install: 'run on a Linux runner with passwordless sudo',
  viaSudo: true,
  spec: (job) => unshareJob(job, true)
}

/**
 * util-linux `unshare`: the plan's mounts made by a short script in new PID, mount, IPC, UTS
 * and (unless opened) network namespaces (bubblewrap does this in C; where it is missing,
 * mount(8) is what there is). Sources a later tmpfs would hide are bound into a private stash
 * first and moved into place through a descriptor. As a user with passwordless sudo
 * (GitHub-hosted runners), the mounts are made as root and the command drops back to the
 * caller's user and primary group, without the supplementary ones (the docker group).
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
  const q = shellQuote
  // -n: no userspace mount table to update (/run, where it lives, is a sealed tmpfs here).
  const mount = `${q(programs.mount ?? 'mount')} -n`
  const lines = ['set -e']
  if (plan.network === 'closed' && programs.ip)
    lines.push(`${q(programs.ip)} link set lo up 2>/dev/null || true`)
  // /dev/null is bound straight from the jail's own /dev; anything else through the stash.
  const stashed = (m: JailMount) => m.type === 'bind' && m.source !== '/dev/null'
  const binds = plan.mounts.flatMap((m, index) =>
    m.type === 'bind' && stashed(m) ? [{ ...m, index }] : []
  )
  lines.push(`${mount} -t tmpfs -o size=1m,mode=0700 patchsmith-stash ${q(stash)}`)
  lines.push(`mkdir ${q(`${stash}/dev`)}`, `${mount} --bind /dev ${q(`${stash}/dev`)}`)
  for (const bind of binds) {
    const slot = q(`${stash}/${bind.index}`)
    lines.push(
      `${bind.file ? ': >' : 'mkdir'} ${slot}`,
      // Read-only as bound: the move keeps it so.
      `${mount} -o ${bind.writable ? 'bind' : 'bind,ro'} ${q(bind.source)} ${slot}`
    )
  }
  lines.push(`exec 3< ${q(stash)}`, ...privateDev(mount))
  // An emptied folder nothing is mounted in is made read-only at once (an exec saved).
  const sealed = (index: number) => {
    const m = plan.mounts[index]!
    return (
      m.type === 'tmpfs' && m.mode !== '1777' && !plan.mounts.slice(index + 1).some(inside(m.path))
    )
  }
  const owner = viaSudo ? `${caller.uid}:${caller.gid}` : '0:0'
  plan.mounts.forEach((m, index) => {
    const path = q(m.path)
    if (m.type === 'tmpfs') {
      const options = `${sealed(index) ? 'ro,' : ''}nosuid,nodev,size=${m.size},mode=${m.mode}`
      lines.push(`${mount} -t tmpfs -o ${options} patchsmith-jail ${path}`)
      return
    }
    if (m.type === 'dir') {
      lines.push(`mkdir -p -m ${m.mode} ${path}`, `chown ${owner} ${path}`)
      return
    }
    // A host socket whose file went since the plan was made needs no cover, also when it goes
    // between the test and the mount (its daemon stopping then): a mount that fails on a path
    // still there stops the jail.
    if (m.ifPresent) {
      lines.push(
        `if [ -e ${path} ]; then ${mount} -o bind,ro /dev/null ${path} || [ ! -e ${path} ]; fi`
      )
      return
    }
    lines.push(`[ -e ${path} ] || ${m.file ? `: > ${path}` : `mkdir -p ${path}`}`)
    if (stashed(m)) lines.push(`${mount} --move /proc/self/fd/3/${index} ${path}`)
    else lines.push(`${mount} -o bind,ro /dev/null ${path}`)
  })
  // The stash holds the host's /dev: detached once everything is moved out of it, through the
  // descriptor (its path may lie under a tmpfs now, or in sight of the jail).
  const umount = `${q(programs.umount ?? 'umount')} -n -c -l`
  lines.push(`${umount} /proc/self/fd/3/dev`, `${umount} /proc/self/fd/3`)
  lines.push('exec 3<&-', ...procLines(plan, !viaSudo, mount))
  // Every other mount read-only (a bind remount changes this namespace's copy only); /sys too.
  const writable = plan.mounts.flatMap((m) =>
    (m.type === 'tmpfs' && m.mode === '1777') || (m.type === 'bind' && m.writable) ? [m.path] : []
  )
  // The plan's own mounts are as they should be, but for an emptied folder holding others.
  const planned = plan.mounts.flatMap((m, index) =>
    m.type === 'dir' || (m.type === 'tmpfs' && !sealed(index)) ? [] : [q(m.path)]
  )
  const keep = [...writable.flatMap((path) => [q(path), `${q(path)}/*`]), ...planned].join('|')
  lines.push(
    // Twice: the first pass makes read-only what it can; the second stops the jail at a mount
    // still writable, unless its path now lies on a read-only one (a host mount the jail's
    // shadow, read-only only once the first pass is done): nothing runs beside a writable mount.
    'seal() {',
    '  while read -r _ _ _ _ point options _; do',
    // Already read-only, made by the plan, or hidden by a tmpfs: nothing to do (each mount(8)
    // costs an exec; a host mount at a path the plan mounts over is listed too).
    '    case "$options" in ro|ro,*) continue ;; esac',
    // mountinfo writes a space as \040, a backslash as \134: printf %b reads \0040, \0134.
    String.raw`    case "$point" in *\\*) point=$(printf '%b' "$(printf '%s' "$point" | sed 's/\\\([0-7]\{3\}\)/\\0\1/g')") ;; esac`,
    `    case "$point" in ${keep}|/proc|/proc/*) continue ;; esac`,
    '    [ -e "$point" ] || continue',
    `    err=$(${mount} -o remount,bind,ro "$point" 2>&1) && continue`,
    '    [ "$1" = strict ] && [ -w "$point" ] || continue',
    `    printf '%s\\n' "${REMOUNT_FAILED} $point: $err" >&2`,
    `    exit ${JAIL_SETUP_FAILED}`,
    '  done < /proc/self/mountinfo',
    '}',
    'seal first',
    'seal strict',
    `cd ${q(cwd)}`
  )
  // perl's own warning of a locale this machine lacks (the workflow's LANG) would open every
  // command's output: silenced for the loader, which takes the variable away again.
  const fullEnv = { ...env, ...plan.env, ...(filter && programs.perl ? { PERL_BADLANG: '0' } : {}) }
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
  // sudo resets the environment: the allowlisted one is handed on explicitly.
  const envArgs = viaSudo
    ? [programs.env ?? 'env', '-i', ...Object.entries(fullEnv).map(([k, v]) => `${k}=${v}`)]
    : []
  // The attribute filter, loaded once the user and powers are dropped, before the command.
  const loader = filter && programs.perl ? perlLoader(programs.perl, filter) : []
  lines.push(`exec ${[...limit, ...drop, ...envArgs, ...loader, ...run].map(q).join(' ')}`)
  const unshare = [programs.unshare ?? 'unshare', '--pid', '--fork', '--mount', '--mount-proc']
  unshare.push('--ipc', '--uts', ...(plan.network === 'closed' ? ['--net'] : []))
  unshare.push('--kill-child', '--propagation', 'private', '--', '/bin/sh', '-c', lines.join('\n'))
  return viaSudo
    ? {
        file: programs.sudo ?? 'sudo',
        // sudo is setuid: the parent-death signal does not pass it, so it is set again behind it.
        args: ['-n', programs.setpriv ?? 'setpriv', '--pdeathsig', 'KILL', '--', ...unshare],
        env: fullEnv
      }
    : { file: unshare[0]!, args: unshare.slice(1), env: fullEnv }
}

/** What the jail says, and its exit code, when it cannot make a mount read-only: nothing runs. */
export const REMOUNT_FAILED = 'patchsmith: the jail stops: it could not make this mount read-only:'
export { JAIL_SETUP_FAILED }

/** Device nodes a command may use, bound from the host's /dev (what bubblewrap's --dev shows). */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty']

/**
 * A /dev of the jail's own, as bubblewrap's --dev makes it: the host's (devtmpfs, writable by
 * root) is replaced by a tmpfs with the harmless nodes bound from the stash, a new devpts and
 * the usual links. The ro loop then makes it read-only; writing a device stays possible.
 */
function privateDev(mount: string): string[] {
  const nodes = DEVICES.map((name) => `/dev/${name}`)
  return [
    `${mount} -t tmpfs -o nosuid,noexec,size=1m,mode=0755 patchsmith-dev /dev`,
    `for node in ${nodes.join(' ')}; do`,
    `  : > "$node"; ${mount} -o bind,ro "/proc/self/fd/3$node" "$node"`,
    'done',
    'mkdir /dev/pts /dev/shm',
    `${mount} -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts 2>/dev/null || true`,
    'ln -s pts/ptmx /dev/ptmx',
    'ln -s /proc/self/fd /dev/fd',
    'ln -s /proc/self/fd/0 /dev/stdin',
    'ln -s /proc/self/fd/1 /dev/stdout',
    'ln -s /proc/self/fd/2 /dev/stderr'
  ]
}

function inside(folder: string): (mount: JailMount) => boolean {
  return (mount) => mount.path !== folder && contains(folder, mount.path)
}
