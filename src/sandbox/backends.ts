import type { SandboxLayout } from './layout.js'

export type BackendName = 'bubblewrap' | 'unshare' | 'sudo-unshare'

/** In order of preference: bubblewrap where installed, else util-linux `unshare` as root or via sudo. */
export const BACKENDS: readonly BackendName[] = ['bubblewrap', 'unshare', 'sudo-unshare']

export interface SpawnSpec {
  file: string
  args: string[]
  env: Record<string, string>
}

export interface Programs {
  bwrap?: string
  unshare?: string
  sudo?: string
  setpriv?: string
}

/**
 * What a command run as root keeps: writing files of other owners in the work tree (a container
 * job's workspace belongs to the runner's user). Not mount, ptrace, setuid or
 * dac_read_search (open_by_handle_at reaches past the mounts).
 */
const ROOT_KEEPS = ['dac_override', 'fowner', 'chown'] as const

/**
 * bubblewrap: a new PID namespace (the command sees only its own processes, and all of them die
 * with it), a read-only root, a fresh /tmp, the hidden folders emptied, the work tree writable
 * and git's folders read-only again inside it. Later mounts win, so the order matters.
 */
export function bubblewrapSpec(
  bwrap: string,
  layout: SandboxLayout,
  command: string,
  cwd: string,
  env: Record<string, string>
): SpawnSpec {
  // As root (a self-hosted runner, a container), bubblewrap keeps every capability unless told:
  // with them the command could remount .git writable or unmount what hides the runner's files.
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--new-session']
  if (process.getuid?.() === 0) {
    args.push('--cap-drop', 'ALL')
    for (const cap of ROOT_KEEPS) args.push('--cap-add', `CAP_${cap.toUpperCase()}`)
  }
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp')
  for (const folder of layout.hidden) args.push('--tmpfs', folder)
  args.push('--bind', layout.workTree, layout.workTree)
  for (const folder of layout.gitDirs) args.push('--ro-bind', folder, folder)
  args.push('--chdir', cwd, '--', '/bin/sh', '-c', command)
  return { file: bwrap, args, env: { ...env, TMPDIR: '/tmp' } }
}

/**
 * util-linux `unshare`: the same layout built by a short script in the new mount namespace
 * (bubblewrap does this in C; where it is missing, mount(8) is what there is). As a user with
 * passwordless sudo (GitHub-hosted runners), the mounts are made as root and the command drops
 * back to the caller's user and groups with `setpriv`.
 */
export function unshareSpec(
  programs: Programs,
  layout: SandboxLayout,
  privateTemp: string,
  command: string,
  cwd: string,
  env: Record<string, string>,
  viaSudo: boolean,
  /** Who the command runs as through sudo: the caller (this process's user) unless named. */
  caller: Caller = currentCaller()
): SpawnSpec {
  const work = layout.workTree
  // With the work tree under /tmp, a tmpfs on /tmp would hide it: a private folder instead.
  const temp = work === '/tmp' || work.startsWith('/tmp/') ? privateTemp : '/tmp'
  const lines = ['set -e', `mount --bind ${shellQuote(work)} ${shellQuote(work)}`]
  for (const folder of layout.gitDirs)
    lines.push(
      `mount --bind ${shellQuote(folder)} ${shellQuote(folder)}`,
      `mount -o remount,bind,ro ${shellQuote(folder)}`
    )
  for (const folder of layout.hidden)
    lines.push(`mount -t tmpfs -o mode=0755,size=1m patchsmith-hidden ${shellQuote(folder)}`)
  lines.push(`mount -t tmpfs -o mode=1777 patchsmith-tmp ${shellQuote(temp)}`)
  // Every other mount read-only (a bind remount changes this namespace's copy only).
  const keep = [work, temp].flatMap((path) => [shellQuote(path), `${shellQuote(path)}/*`]).join('|')
  lines.push(
    'while read -r _ _ _ _ point _; do',
    `  case "$point" in ${keep}|/proc|/proc/*|/dev|/dev/*|/sys|/sys/*) continue ;; esac`,
    '  mount -o remount,bind,ro "$point" 2>/dev/null || true',
    'done < /proc/self/mountinfo',
    `cd ${shellQuote(cwd)}`
  )
  const fullEnv = { ...env, TMPDIR: temp }
  const run = ['/bin/sh', '-c', command]
  // The mounts above need root; the command must not have its powers. No capabilities to regain
  // (a bounding set of ROOT_KEEPS as root, empty otherwise), and no setuid program may raise
  // them again (no_new_privs: a passwordless sudo inside the jail would otherwise undo it all).
  const keeps = viaSudo ? '' : ROOT_KEEPS.map((cap) => `,+${cap}`).join('')
  const powerless = [
    programs.setpriv ?? 'setpriv',
    '--no-new-privs',
    `--bounding-set=-all${keeps}`,
    '--inh-caps=-all'
  ]
  if (viaSudo) {
    const { uid, gid, groups } = caller
    const drop = [
      ...powerless,
      `--reuid=${uid}`,
      `--regid=${gid}`,
      groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups',
      '--'
    ]
    // sudo resets the environment: the allowlisted one is handed on explicitly.
    const envArgs = ['env', '-i', ...Object.entries(fullEnv).map(([k, v]) => `${k}=${v}`)]
    lines.push(`exec ${[...drop, ...envArgs, ...run].map(shellQuote).join(' ')}`)
  } else lines.push(`exec ${[...powerless, '--', ...run].map(shellQuote).join(' ')}`)
  const unshare = [
    programs.unshare ?? 'unshare',
    '--pid',
    '--fork',
    '--mount',
    '--mount-proc',
    '--kill-child',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    lines.join('\n')
  ]
  return viaSudo
    ? { file: programs.sudo ?? 'sudo', args: ['-n', ...unshare], env: fullEnv }
    : { file: unshare[0]!, args: unshare.slice(1), env: fullEnv }
}

export interface Caller {
  uid: number
  gid: number
  groups: number[]
}

function currentCaller(): Caller {
  return {
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
    groups: process.getgroups?.() ?? []
  }
}

/** One shell word, single-quoted. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
