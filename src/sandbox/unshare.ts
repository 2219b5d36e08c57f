import {
  bounding,
  limitPrefix,
  procLines,
  shellQuote,
  type Caller,
  type Programs,
  type SpawnSpec
} from './backends.js'
import type { JailPlan } from './jail-plan.js'

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
  caller: Caller
): SpawnSpec {
  const q = shellQuote
  const mount = q(programs.mount ?? 'mount')
  const lines = ['set -e']
  if (plan.network === 'closed' && programs.ip)
    lines.push(`${q(programs.ip)} link set lo up 2>/dev/null || true`)
  const binds = plan.mounts.flatMap((m, index) => (m.type === 'bind' ? [{ ...m, index }] : []))
  lines.push(`${mount} -t tmpfs -o size=1m,mode=0700 patchsmith-stash ${q(stash)}`)
  for (const bind of binds) {
    const slot = q(`${stash}/${bind.index}`)
    lines.push(
      `${bind.file ? ': >' : 'mkdir'} ${slot}`,
      `${mount} --bind ${q(bind.source)} ${slot}`
    )
  }
  lines.push(`exec 3< ${q(stash)}`)
  const owner = viaSudo ? `${caller.uid}:${caller.gid}` : '0:0'
  plan.mounts.forEach((m, index) => {
    const path = q(m.path)
    if (m.type === 'tmpfs') {
      const options = `nosuid,nodev,size=${m.size},mode=${m.mode}`
      lines.push(`${mount} -t tmpfs -o ${options} patchsmith-jail ${path}`)
      return
    }
    if (m.type === 'dir') {
      lines.push(`mkdir -p -m ${m.mode} ${path}`, `chown ${owner} ${path}`)
      return
    }
    lines.push(
      `[ -e ${path} ] || ${m.file ? `: > ${path}` : `mkdir -p ${path}`}`,
      `${mount} --move /proc/self/fd/3/${index} ${path}`
    )
    if (!m.writable) lines.push(`${mount} -o remount,bind,ro ${path}`)
  })
  lines.push('exec 3<&-', ...procLines(plan, !viaSudo, mount))
  // Every other mount read-only (a bind remount changes this namespace's copy only); /sys too.
  const writable = plan.mounts.flatMap((m) =>
    (m.type === 'tmpfs' && m.mode === '1777') || (m.type === 'bind' && m.writable) ? [m.path] : []
  )
  const keep = writable.flatMap((path) => [q(path), `${q(path)}/*`]).join('|')
  lines.push(
    'while read -r _ _ _ _ point _; do',
    `  case "$point" in ${keep}|/proc|/proc/*|/dev|/dev/*) continue ;; esac`,
    `  ${mount} -o remount,bind,ro "$point" 2>/dev/null || true`,
    'done < /proc/self/mountinfo',
    `cd ${q(cwd)}`
  )
  const fullEnv = { ...env, ...plan.env }
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
  if (viaSudo) {
    const drop = [
      ...powerless,
      `--reuid=${caller.uid}`,
      `--regid=${caller.gid}`,
      '--clear-groups',
      '--'
    ]
    // sudo resets the environment: the allowlisted one is handed on explicitly.
    const envArgs = ['env', '-i', ...Object.entries(fullEnv).map(([k, v]) => `${k}=${v}`)]
    lines.push(`exec ${[...limit, ...drop, ...envArgs, ...run].map(q).join(' ')}`)
  } else lines.push(`exec ${[...limit, ...powerless, '--', ...run].map(q).join(' ')}`)
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
