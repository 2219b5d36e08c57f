/**
 * The unshare jail fails closed: a mount it cannot make read-only stops it before the command
 * runs, with the mount named (src/sandbox/unshare.ts, `seal`). A host mount the jail's own mounts
 * shadow, whose path lies on a read-only mount in the end, is no reason to stop.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { gitDirs } from '../../src/git/index.js'
import {
  bubblewrapSpec,
  JAIL_SETUP_FAILED,
  jailPlan,
  REMOUNT_FAILED,
  Sandbox,
  socketCover,
  unshareSpec,
  type JailPlan,
  type SandboxLayout
} from '../../src/sandbox/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { refusingRemountsPerl } from '../support/refusing-remounts.js'
import { skipWithout } from '../support/sandbox-needs.js'

const skip = skipWithout('unshare')
const made: Array<() => void> = []
afterEach(() => {
  for (const undo of made.splice(0).reverse()) undo()
})

const which = (name: string) =>
  execFileSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin command -v ${name}`], {
    encoding: 'utf8'
  }).trim()

function repository(): TestRepo {
  const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'unshare-remount' })
  made.push(() => repo.cleanup())
  return repo
}

/** A perl whose mount calls the kernel refuses when they remount (support/refusing-remounts.ts). */
function refusingPerl(): { dir: string; perl: string } {
  const refusing = refusingRemountsPerl()
  made.push(refusing.remove)
  return refusing
}

function programs(perl?: string) {
  return {
    unshare: which('unshare'),
    setpriv: which('setpriv'),
    perl: perl ?? which('perl')
  }
}

/** The jail's plan for `repo`, covering a host socket at `socket` as hostSockets() found it. */
function planCovering(repo: TestRepo, socket: string) {
  const plan = jailPlan({ workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] }, [])
  plan.mounts.push(socketCover(socket))
  return plan
}

function stash(): string {
  const dir = mkdtempSync(join(tmpdir(), 'unshare-stash-'))
  made.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The unshare jail as root for `plan` (or a layout's), running `command` in the repository. */
function rootSpec(
  repo: TestRepo,
  plan: JailPlan | SandboxLayout,
  command: string,
  options: { perl?: string; stash?: string } = {}
) {
  return unshareSpec(
    programs(options.perl),
    'mounts' in plan ? plan : jailPlan(plan, []),
    options.stash ?? stash(),
    command,
    repo.dir,
    { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
    false,
    { uid: 0, gid: 0 }
  )
}

/**
 * Runs `spec` where the host has a mount at `point`, made by `outer` (given the point as $1) in a
 * mount namespace of the test's own, never on the machine.
 */
function besideHostMount(
  repo: TestRepo,
  spec: ReturnType<typeof unshareSpec>,
  outer: string,
  point: string
) {
  const args = ['--mount', '--propagation', 'private', 'sh', '-c', outer, 'sh', point]
  return spawnSync(which('unshare'), [...args, spec.file, ...spec.args], {
    cwd: repo.dir,
    env: spec.env,
    encoding: 'utf8'
  })
}

it.skipIf(skip)('stops before the command when a remount fails, naming the mount', () => {
  const repo = repository()
  const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] }
  const slots = stash()
  const spec = rootSpec(repo, layout, 'touch ran', { perl: refusingPerl().perl, stash: slots })
  const run = spawnSync(spec.file, spec.args, { cwd: repo.dir, env: spec.env, encoding: 'utf8' })
  expect(run.status).toBe(JAIL_SETUP_FAILED)
  // The first read-only bind names itself: a slot of the stash, before any tmpfs is made.
  expect(run.stderr).toContain(`${REMOUNT_FAILED} ${slots}/`)
  expect(run.stderr.trim()).toMatch(/: Operation not permitted$/)
  expect(existsSync(join(repo.dir, 'ran'))).toBe(false)
})

it.skipIf(skip)('is not chosen when its probe cannot make the mounts read-only', async () => {
  const repo = repository()
  const saved = process.env.PATH
  process.env.PATH = `${refusingPerl().dir}:${saved}`
  try {
    const sandbox = await Sandbox.open(
      { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] },
      ['unshare'],
      { overlay: false }
    )
    made.push(() => sandbox.dispose())
    expect(sandbox.active).toBe(false)
    expect(sandbox.unavailable.join('\n')).toContain(`unshare: ${REMOUNT_FAILED} /`)
  } finally {
    process.env.PATH = saved
  }
})

it.skipIf(skip)(
  'runs when the only mount it cannot remount is shadowed, and that one stays read-only',
  () => {
    const repo = repository()
    // A hidden folder with a host mount inside and a toolchain shown again below that: in the
    // jail the mount's path exists again, but is not a mount point there (remount: EINVAL).
    // Outside /tmp: the jail's /tmp is a fresh writable one, where nothing is hidden.
    const hidden = mkdtempSync('/var/tmp/unshare-hidden-')
    made.push(() => rmSync(hidden, { recursive: true, force: true }))
    const tool = join(hidden, 'mounted', 'tool')
    mkdirSync(tool, { recursive: true })
    const layout = {
      workTree: repo.dir,
      gitDirs: gitDirs(repo.dir),
      hidden: [hidden],
      revealed: [tool]
    }
    const mounted = join(hidden, 'mounted')
    const command = `touch ran; (touch ${mounted}/x 2>/dev/null && echo writable) || echo read-only`
    const spec = rootSpec(repo, layout, command)
    const outer = `${which('mount')} -t tmpfs host-mount "$1" && mkdir "$1/tool" && shift && exec "$@"`
    const run = besideHostMount(repo, spec, outer, mounted)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout.trim(), run.stderr).toBe('read-only')
    expect(existsSync(join(repo.dir, 'ran'))).toBe(true)
  }
)

it.skipIf(skip || skipWithout('bubblewrap'))(
  'a host socket whose file went after the plan was made does not stop the jail (unshare, bubblewrap)',
  () => {
    const repo = repository()
    // What hostSockets() planned to cover, gone by the time the jail is made (its process ended
    // and its folder was removed): under load another test's or another job's socket does.
    const gone = join(mkdtempSync('/opt/patchsmith-gone-'), 'vanished')
    rmSync(gone.replace(/\/vanished$/, ''), { recursive: true, force: true })
    const plan = planCovering(repo, join(gone, 'agent.sock'))
    const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }
    const root = { uid: 0, gid: 0 }
    const specs = [
      unshareSpec(programs(), plan, stash(), 'echo jail-ran', repo.dir, env, false, root),
      bubblewrapSpec({ bwrap: which('bwrap') }, plan, 'echo jail-ran', repo.dir, env, root)
    ]
    for (const spec of specs) {
      const out = spawnSync(spec.file, spec.args, {
        cwd: repo.dir,
        env: spec.env,
        encoding: 'utf8'
      })
      expect(out.stdout + out.stderr).toContain('jail-ran')
    }
  }
)

it.skipIf(skip)(
  'a host socket cover that fails on a path still there stops the jail before the command',
  () => {
    const repo = repository()
    const folder = mkdtempSync('/opt/patchsmith-going-')
    made.push(() => rmSync(folder, { recursive: true, force: true }))
    const socket = join(folder, 'agent.sock')
    const plan = planCovering(repo, socket)
    // What was a socket when the plan was made is a folder now: /dev/null cannot be bound on it.
    mkdirSync(socket)
    const spec = rootSpec(repo, plan, 'echo jail-ran')
    const refused = spawnSync(spec.file, spec.args, {
      cwd: repo.dir,
      env: spec.env,
      encoding: 'utf8'
    })
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toContain(`could not cover ${socket}: Not a directory`)
    expect(refused.status).toBe(JAIL_SETUP_FAILED)
  }
)

it.skipIf(skip)(
  "keeps a mount's nosuid, nodev and noexec when it makes it read-only, and /proc's covers' too",
  () => {
    const repo = repository()
    // A toolchain on a host mount of its own that forbids set-user-ID programs, device nodes
    // and running anything: a remount that gave the flags up would allow them in the jail.
    const tool = mkdtempSync('/var/tmp/unshare-flags-')
    made.push(() => rmSync(tool, { recursive: true, force: true }))
    const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [], revealed: [tool] }
    const spec = rootSpec(repo, layout, 'cat /proc/self/mountinfo')
    const outer = `${which('mount')} -t tmpfs -o nosuid,nodev,noexec host-mount "$1" && shift && exec "$@"`
    const run = besideHostMount(repo, spec, outer, tool)
    expect(run.status, run.stderr).toBe(0)
    const options = (point: string) =>
      run.stdout
        .split('\n')
        .map((line) => line.split(' '))
        .filter((fields) => fields[4] === point)
        .map((fields) => fields[5]!.split(','))
        .at(-1)
    for (const point of [tool, '/proc/sys'])
      expect(options(point), point).toEqual(
        expect.arrayContaining(['ro', 'nosuid', 'nodev', 'noexec'])
      )
    // The jail's own /dev (a tmpfs made nosuid and noexec), made read-only by the seal.
    const dev = run.stdout.split('\n').find((line) => line.includes(' - tmpfs patchsmith-dev '))
    expect(dev?.split(' ')[5]?.split(',')).toEqual(
      expect.arrayContaining(['ro', 'nosuid', 'noexec'])
    )
  }
)

it.skipIf(skip)(
  "stops before any mount where perl's system call numbers are not the host's (another architecture's perl)",
  () => {
    const repo = repository()
    const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] }
    const spec = rootSpec(repo, layout, 'touch ran')
    // The first number is getpid's: a perl built for another architecture would make another call.
    const args = [...spec.args]
    args[args.indexOf('-e') + 3] = '1000'
    const run = spawnSync(spec.file, args, { cwd: repo.dir, env: spec.env, encoding: 'utf8' })
    expect(run.status).toBe(JAIL_SETUP_FAILED)
    expect(run.stderr).toContain(
      "patchsmith: the jail stops: this perl's system calls are not the host's"
    )
    expect(existsSync(join(repo.dir, 'ran'))).toBe(false)
  }
)

it.skipIf(skip)(
  "runs where the host's /dev/ptmx is a bind mount (LXC's), which the jail's own /dev links over",
  () => {
    const repo = repository()
    const spec = rootSpec(
      repo,
      { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] },
      'touch ran'
    )
    const run = besideHostMount(
      repo,
      spec,
      'mount --bind /dev/pts/ptmx "$1" && shift && exec "$@"',
      '/dev/ptmx'
    )
    expect(run.status, run.stderr).toBe(0)
    expect(existsSync(join(repo.dir, 'ran'))).toBe(true)
  }
)
