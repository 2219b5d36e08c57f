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
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--new-session']
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
  viaSudo: boolean
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
  if (viaSudo) {
    const uid = process.getuid?.() ?? 0
    const gid = process.getgid?.() ?? 0
    const groups = process.getgroups?.() ?? []
    const drop = [
      programs.setpriv ?? 'setpriv',
      `--reuid=${uid}`,
      `--regid=${gid}`,
      groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups',
      '--'
    ]
    // sudo resets the environment: the allowlisted one is handed on explicitly.
    const envArgs = ['env', '-i', ...Object.entries(fullEnv).map(([k, v]) => `${k}=${v}`)]
    lines.push(`exec ${[...drop, ...envArgs, ...run].map(shellQuote).join(' ')}`)
  } else lines.push(`exec ${run.map(shellQuote).join(' ')}`)
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

/** One shell word, single-quoted. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
