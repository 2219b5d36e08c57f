/**
 * The sandbox backends are strategies in one registry (src/sandbox/backends.ts): each names the
 * programs it needs and who must run it, and wraps a command in the jail exactly as its own
 * spec function does.
 */
import { describe, expect, it } from 'vitest'
import {
  BACKENDS,
  backendNamed,
  bubblewrapSpec,
  installAdvice,
  unshareSpec,
  type JailJob,
  type JailPlan
} from '../../src/sandbox/index.js'
import { unavailableReason } from '../../src/sandbox/backend.js'
import { setupUnsupported } from '../../src/sandbox/unshare-setup.js'

const ALL = {
  bwrap: '/usr/bin/bwrap',
  unshare: '/usr/bin/unshare',
  sudo: '/usr/bin/sudo',
  setpriv: '/usr/bin/setpriv',
  perl: '/usr/bin/perl',
  env: '/usr/bin/env'
}
const without = (name: keyof typeof ALL) => ({ ...ALL, [name]: undefined })

describe('the sandbox backends', () => {
  it('are tried in order of preference: bubblewrap, unshare as root, unshare through sudo', () => {
    expect(BACKENDS).toEqual(['bubblewrap', 'unshare', 'sudo-unshare'])
    for (const name of BACKENDS) expect(backendNamed(name).name).toBe(name)
  })

  it.each([
    ['bubblewrap', ALL, true, undefined],
    ['bubblewrap', ALL, false, undefined],
    ['bubblewrap', without('bwrap'), true, 'no bwrap'],
    ['unshare', ALL, true, undefined],
    ['unshare', ALL, false, 'not running as root'],
    ['unshare', without('unshare'), false, 'no unshare'],
    ['unshare', without('setpriv'), true, 'no setpriv'],
    // The attribute filter's loader: without it the jail would run unfiltered.
    ['unshare', without('perl'), true, 'no perl'],
    ['unshare', without('env'), true, 'no env'],
    ['sudo-unshare', ALL, false, undefined],
    ['sudo-unshare', ALL, true, 'not needed as root'],
    ['sudo-unshare', without('unshare'), true, 'not needed as root'],
    ['sudo-unshare', without('sudo'), false, 'no sudo'],
    ['sudo-unshare', without('setpriv'), false, 'no setpriv'],
    ['sudo-unshare', without('perl'), false, 'no perl']
  ] as const)('%s with %j, root %s: %s', (name, programs, root, reason) => {
    expect(unavailableReason(backendNamed(name), programs, root)).toBe(reason)
  })

  it('make the unshare jail where perl knows the mount calls by number (x64, arm64) only', () => {
    expect(setupUnsupported('x64')).toBeUndefined()
    expect(setupUnsupported('arm64')).toBeUndefined()
    expect(setupUnsupported('s390x')).toBe(
      'its mounts are made by system call, whose numbers are known here for x64 and arm64, not s390x'
    )
    for (const name of ['unshare', 'sudo-unshare'] as const)
      expect(backendNamed(name).unsupported).toBe(setupUnsupported)
    expect(backendNamed('bubblewrap').unsupported).toBeUndefined()
  })

  it('advise installing bubblewrap, else a runner with passwordless sudo', () => {
    expect(installAdvice()).toBe(
      'Install bubblewrap (`sudo apt-get install -y bubblewrap`, e.g. in a step before this one), run on a Linux runner with passwordless sudo'
    )
  })

  const plan: JailPlan = {
    mounts: [
      { type: 'tmpfs', path: '/tmp', size: 1024, mode: '1777' },
      { type: 'bind', source: '/work/tree', path: '/work/tree', writable: true, file: false }
    ],
    network: 'closed',
    maxTasks: 512,
    env: { HOME: '/tmp/home' }
  }
  const job: JailJob = {
    programs: { ...ALL, mount: '/usr/bin/mount', prlimit: '/usr/bin/prlimit' },
    plan,
    stash: '/tmp/stash',
    command: 'make test',
    cwd: '/work/tree',
    env: { PATH: '/usr/bin:/bin' },
    caller: { uid: 1001, gid: 1001, tasks: 3 }
  }

  it('wrap a command as their spec functions do', () => {
    const { programs, stash, command, cwd, env, caller } = job
    expect(backendNamed('bubblewrap').spec(job)).toEqual(
      bubblewrapSpec(programs, plan, command, cwd, env, caller)
    )
    expect(backendNamed('unshare').spec(job)).toEqual(
      unshareSpec(programs, plan, stash, command, cwd, env, false, caller)
    )
    const viaSudo = backendNamed('sudo-unshare').spec(job)
    expect(viaSudo).toEqual(unshareSpec(programs, plan, stash, command, cwd, env, true, caller))
    expect(viaSudo.file).toBe('/usr/bin/sudo')
  })
})
