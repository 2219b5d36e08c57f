/**
 * What the sandbox tests (and the few that run pytest) need from this machine, and why one
 * skips. A machine without bubblewrap, sudo or pytest (a fresh clone) still passes `npm test`:
 * those tests skip, and the run ends with ONE line naming what to install
 * (plain-summary-reporter.ts). Under PATCHSMITH_REQUIRE_SANDBOX=1 (.ci/run) they run, and fail
 * where the machine lacks them.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

export const REQUIRE_SANDBOX = process.env.PATCHSMITH_REQUIRE_SANDBOX === '1'
export const SUDO_USER = 'patchsmith-sudo'

export type Need = 'bubblewrap' | 'unshare' | 'sudo-unshare' | 'pytest'

const has = (program: string) =>
  spawnSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin command -v ${program}`]).status === 0

let reasons: Partial<Record<Exclude<Need, 'pytest'>, string>> | undefined

/** Why each backend's tests cannot run here (absent: they can). */
export function sandboxGaps(): Partial<Record<Exclude<Need, 'pytest'>, string>> {
  if (reasons) return reasons
  const root = process.getuid?.() === 0
  reasons = {}
  if (!has('bwrap')) reasons.bubblewrap = 'no bwrap: apt-get install bubblewrap'
  else {
    // Installed but unusable (user namespaces refused, as under some AppArmor profiles).
    const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', 'true'], {
      encoding: 'utf8',
      // A backstop: a loaded machine must not turn a slow probe into skipped tests.
      timeout: 60_000
    })
    if (probe.status !== 0)
      reasons.bubblewrap = `bwrap cannot make a sandbox here (${probe.stderr.trim() || 'failed'})`
  }
  // perl loads the jail's seccomp filter for the unshare backends (attribute-filter.ts).
  if (!root || !has('unshare') || !has('setpriv') || !has('perl'))
    reasons.unshare = 'needs root, unshare and setpriv (util-linux) and perl'
  if (
    !root ||
    !has('sudo') ||
    !has('runuser') ||
    !has('perl') ||
    !existsSync(`/etc/sudoers.d/${SUDO_USER}`)
  )
    reasons['sudo-unshare'] =
      `needs root, sudo, perl and the ${SUDO_USER} user: apt-get install sudo, then .ci/run's setup`
  return reasons
}

let pytestGap: string | null | undefined

/**
 * Why the tests that run a real pytest cannot run here (Debian's python3 comes without it), or
 * null: asked apart from the sandbox's needs, since only a few files need it.
 */
function pytestMissing(): string | null {
  if (pytestGap !== undefined) return pytestGap
  const probe = spawnSync('python3', ['-m', 'pytest', '--version'], {
    stdio: 'ignore',
    timeout: 60_000
  })
  pytestGap =
    probe.status === 0 ? null : 'python3 cannot run pytest: apt-get install python3-pytest'
  return pytestGap
}

/** Whether tests that need `what` skip here (never under PATCHSMITH_REQUIRE_SANDBOX=1). */
export function skipWithout(what: Need): boolean {
  if (REQUIRE_SANDBOX) return false
  return what === 'pytest' ? pytestMissing() !== null : !!sandboxGaps()[what]
}

/** The one line a run with tests skipped for what this machine lacks ends with, or undefined. */
export function sandboxSkipLine(): string | undefined {
  if (REQUIRE_SANDBOX) return undefined
  const pytest = pytestMissing()
  const gaps = [...Object.entries(sandboxGaps()), ...(pytest ? [['pytest', pytest]] : [])]
  if (gaps.length === 0) return undefined
  const what = gaps.map(([need, reason]) => `${need} (${reason})`).join('; ')
  return `Tests skipped on this machine for what it lacks: ${what}. PATCHSMITH_REQUIRE_SANDBOX=1 makes them fail instead.`
}

/**
 * The ways a run through dist/ meets the jail: as root under bubblewrap and unshare, and as a
 * GitHub-hosted runner's user (bubblewrap, not root). Each: its name, the backend, the user
 * (none: root) and whether this machine runs it.
 */
export const DIST_WAYS = [
  ['as root, bubblewrap', 'bubblewrap', undefined, !skipWithout('bubblewrap')],
  ['as root, unshare', 'unshare', undefined, !skipWithout('unshare')],
  [
    "as a hosted runner's user (bubblewrap)",
    'bubblewrap',
    SUDO_USER,
    !skipWithout('bubblewrap') && !skipWithout('sudo-unshare')
  ]
] as const
