/**
 * The unshare jail fails closed: a mount it cannot make read-only stops it before the command
 * runs, with the mount named (src/sandbox/unshare.ts, `seal`). A host mount the jail's own mounts
 * shadow, whose path lies on a read-only mount in the end, is no reason to stop.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
  unshareSpec
} from '../../src/sandbox/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'
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

/** A mount(8) that refuses every read-only remount, as a kernel or a locked mount would. */
function refusingMount(): string {
  // Not in /tmp: the jail's setup runs mount(8) after it has mounted its own /tmp.
  const dir = mkdtempSync('/var/tmp/refusing-mount-')
  made.push(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'mount')
  writeFileSync(
    path,
    `#!/bin/sh\ncase " $* " in *" remount,bind,ro "*) echo "mount: permission denied (refused here)" >&2; exit 32 ;; esac\nexec ${which('mount')} "$@"\n`
  )
  chmodSync(path, 0o755)
  return dir
}

function programs(mount?: string) {
  return {
    unshare: which('unshare'),
    setpriv: which('setpriv'),
    mount: mount ?? which('mount')
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

it.skipIf(skip)('stops before the command when a remount fails, naming the mount', () => {
  const repo = repository()
  const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] }
  const spec = unshareSpec(
    programs(join(refusingMount(), 'mount')),
    jailPlan(layout, []),
    stash(),
    'touch ran',
    repo.dir,
    { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
    false,
    { uid: 0, gid: 0 }
  )
  const run = spawnSync(spec.file, spec.args, { cwd: repo.dir, env: spec.env, encoding: 'utf8' })
  expect(run.status).toBe(JAIL_SETUP_FAILED)
  expect(run.stderr).toContain(`${REMOUNT_FAILED} /: mount: permission denied (refused here)`)
  expect(existsSync(join(repo.dir, 'ran'))).toBe(false)
})

it.skipIf(skip)('is not chosen when its probe cannot make the mounts read-only', async () => {
  const repo = repository()
  const saved = process.env.PATH
  process.env.PATH = `${refusingMount()}:${saved}`
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
    const spec = unshareSpec(
      programs(),
      jailPlan(layout, []),
      stash(),
      command,
      repo.dir,
      { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
      false,
      { uid: 0, gid: 0 }
    )
    // The host mount is made in a mount namespace of the test's own, never on the machine.
    const outer = `${which('mount')} -t tmpfs host-mount "$1" && mkdir "$1/tool" && shift && exec "$@"`
    const run = spawnSync(
      which('unshare'),
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        outer,
        'sh',
        mounted,
        spec.file,
        ...spec.args
      ],
      { cwd: repo.dir, env: spec.env, encoding: 'utf8' }
    )
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
  'a host socket whose file goes between the test and its cover mount does not stop the jail; a cover that fails on a path still there does',
  () => {
    const repo = repository()
    const folder = mkdtempSync('/opt/patchsmith-going-')
    made.push(() => rmSync(folder, { recursive: true, force: true }))
    const socket = join(folder, 'agent.sock')
    const plan = planCovering(repo, socket)
    const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }
    const root = { uid: 0, gid: 0 }
    // mount(8) as it is when the socket's daemon stops at that moment: the file is gone when the
    // real mount runs, after the jail's test saw it; or a mount that fails with the file there.
    const dir = mkdtempSync('/var/tmp/going-mount-')
    made.push(() => rmSync(dir, { recursive: true, force: true }))
    const mount = (action: string) => {
      const path = join(dir, `mount-${action.length}`)
      writeFileSync(
        path,
        `#!/bin/sh\ncase " $* " in *" ${socket} "*) ${action} ;; esac\nexec ${which('mount')} "$@"\n`
      )
      chmodSync(path, 0o755)
      return path
    }
    const run = (mountProgram: string) => {
      writeFileSync(socket, '')
      const spec = unshareSpec(
        programs(mountProgram),
        plan,
        stash(),
        'echo jail-ran',
        repo.dir,
        env,
        false,
        root
      )
      return spawnSync(spec.file, spec.args, { cwd: repo.dir, env: spec.env, encoding: 'utf8' })
    }
    const went = run(mount(`rm -f ${socket}`))
    expect(went.stdout.trim(), went.stderr).toBe('jail-ran')
    const refused = run(mount('echo "mount: refused here" >&2; exit 32'))
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toContain('mount: refused here')
    expect(refused.status).not.toBe(0)
  }
)
