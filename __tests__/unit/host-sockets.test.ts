/**
 * The host sockets a jail covers, worked out as the GitHub-hosted runner's user: another
 * process's socket in a folder that user cannot enter is closed to the command too, and must
 * not stop the run (it did: EACCES from lstat, an ENVIRONMENT_ERROR for every jail while one
 * existed).
 */
import { execFile, execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { jailPlan } from '../../src/sandbox/index.js'
import { unixSocketEntries } from '../../src/sandbox/host-sockets.js'
import { PROJECT_ROOT } from '../support/action-runner.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

it.skipIf(skipWithout('sudo-unshare'))(
  "plans a jail as a user who cannot enter the folder of a host socket (root's, mode 0700)",
  async () => {
    const closed = mkdtempSync('/opt/patchsmith-closed-')
    cleanups.push(() => rmSync(closed, { recursive: true, force: true }))
    const socket = join(closed, 'daemon.sock')
    const listener = spawn(
      process.execPath,
      [
        '-e',
        `require('net').createServer(() => {}).listen(${JSON.stringify(socket)}, () => console.log('ready'))`
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    )
    cleanups.push(() => listener.kill())
    await new Promise((resolve) => listener.stdout.once('data', resolve))
    // A work tree of its own, open to the user: /var/tmp whole held other files' repositories,
    // whose closed folders stopped this plan (1 failed in an idle suite).
    const [workTree] = folders('/var/tmp/patchsmith-tree-')
    chmodSync(workTree, 0o755)
    const plan = join(PROJECT_ROOT, 'src/sandbox/jail-plan.ts')
    const script = `import(${JSON.stringify(plan)}).then((m) => console.log('mounts', m.jailPlan({ workTree: ${JSON.stringify(workTree)}, gitDirs: [], hidden: [] }, []).mounts.length))`
    const out = await new Promise<string>((resolve) =>
      execFile(
        'runuser',
        ['-u', SUDO_USER, '--', process.execPath, '--import', 'tsx', '-e', script],
        { cwd: PROJECT_ROOT, timeout: 120_000 },
        (error, stdout, stderr) => resolve(`${stdout}${stderr}${error ? String(error) : ''}`)
      )
    )
    expect(out).toMatch(/^mounts \d+$/m)
  }
)

/** A fresh folder for each prefix, removed after the test. */
function folders(...prefixes: string[]): string[] {
  const made = prefixes.map((prefix) => mkdtempSync(prefix))
  cleanups.push(() => {
    for (const folder of made) rmSync(folder, { recursive: true, force: true })
  })
  return made
}

/** A host process listening at each of `paths` (relative ones from `cwd`). */
async function listen(cwd: string, ...paths: string[]): Promise<void> {
  const script = `const net = require('net'); let left = ${paths.length}
for (const path of ${JSON.stringify(paths)}) net.createServer(() => {}).listen(path, () => --left || console.log('ready'))`
  const listener = spawn(process.execPath, ['-e', script], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit']
  })
  cleanups.push(() => listener.kill())
  await new Promise((resolve) => listener.stdout.once('data', resolve))
}

const covered = (workTree: string) =>
  jailPlan({ workTree, gitDirs: [], hidden: [] }, [])
    .mounts.filter((mount) => mount.type === 'bind' && mount.source === '/dev/null')
    .map((mount) => mount.path)

it.skipIf(process.getuid?.() !== 0)(
  'covers a socket in a folder mounted into /opt, which the list names only where it was bound, also after a search of /opt',
  async () => {
    const [host, opt, workTree] = folders(
      '/var/tmp/patchsmith-run-',
      '/opt/patchsmith-run-',
      '/var/tmp/patchsmith-tree-'
    )
    await listen(host!, join(host!, 'agent.sock'))
    // Before the mount: /opt searched whole (a socket bound by a relative path makes it so).
    await listen(host!, 'relative.sock')
    expect(covered(workTree!)).not.toContain(join(opt!, 'agent.sock'))
    // `docker run -v /var/run:/opt/run`: the same folder, mounted where the jail shows it.
    execFileSync('mount', ['--bind', host!, opt!])
    cleanups.push(() => execFileSync('umount', ['-l', opt!]))
    expect(covered(workTree!)).toContain(join(opt!, 'agent.sock'))
  }
)

it.skipIf(process.getuid?.() !== 0)(
  'covers a socket whose name holds a newline, which the list prints over two lines',
  async () => {
    const [opt, workTree] = folders('/opt/patchsmith-newline-', '/var/tmp/patchsmith-tree-')
    // The second reads, line by line, as the first: a named socket, nothing to search.
    await listen(opt!, join(opt!, 'a'), join(opt!, 'a\nb.sock'))
    expect(covered(workTree!)).toContain(join(opt!, 'a\nb.sock'))
  }
)

it.skipIf(process.getuid?.() !== 0)(
  'covers a socket a mount hid once that mount is taken away, while a disk mounted elsewhere changes nothing',
  async () => {
    const [hiding, elsewhere, workTree] = folders(
      '/opt/patchsmith-hidden-',
      '/var/tmp/patchsmith-disk-',
      '/var/tmp/patchsmith-tree-'
    )
    // Bound by a relative path: no list names it, so /opt is searched whole.
    await listen(hiding!, 'hidden.sock')
    execFileSync('mount', ['-t', 'tmpfs', 'patchsmith-test', hiding!])
    let mounted = true
    cleanups.push(() => mounted && execFileSync('umount', ['-l', hiding!]))
    expect(covered(workTree!)).not.toContain(join(hiding!, 'hidden.sock'))
    execFileSync('mount', ['-t', 'tmpfs', 'patchsmith-test', elsewhere!])
    cleanups.push(() => execFileSync('umount', ['-l', elsewhere!]))
    expect(covered(workTree!)).not.toContain(join(hiding!, 'hidden.sock'))
    execFileSync('umount', [hiding!])
    mounted = false
    expect(covered(workTree!)).toContain(join(hiding!, 'hidden.sock'))
  }
)

it("reads /proc/net/unix's last entry without the newline that ends it (taken into its path, every jail searched the shown trees whole)", () => {
  const head = 'Num       RefCount Protocol Flags    Type St Inode Path\n'
  const entry = (inode: number, path: string) =>
    `0000000027f9a889: 00000003 00000000 00000000 0001 03 ${inode} ${path}\n`
  expect(unixSocketEntries(head + entry(1, '/run/a.sock') + entry(2, '/run/b.sock'))).toEqual([
    entry(1, '/run/a.sock').trimEnd(),
    entry(2, '/run/b.sock').trimEnd()
  ])
  // A path with a newline in it, last or not, keeps it; an entry with no path is one too.
  const odd = entry(3, '/run/c\nd.sock') + entry(4, '').replace(' \n', '\n') + entry(5, '/run/e\n')
  expect(unixSocketEntries(head + odd)).toEqual([
    entry(3, '/run/c\nd.sock').slice(0, -1),
    entry(4, '').replace(' \n', ''),
    entry(5, '/run/e\n').slice(0, -1)
  ])
})

it.skipIf(process.getuid?.() !== 0)(
  'covers a socket renamed away from a path where a second socket was bound since: the list names that path twice',
  async () => {
    const [opt, workTree] = folders('/opt/patchsmith-twice-', '/var/tmp/patchsmith-tree-')
    await listen(opt!, join(opt!, 'a.sock'))
    renameSync(join(opt!, 'a.sock'), join(opt!, 'hidden.sock'))
    await listen(opt!, join(opt!, 'a.sock'))
    expect(covered(workTree!)).toEqual(
      expect.arrayContaining([join(opt!, 'hidden.sock'), join(opt!, 'a.sock')])
    )
  }
)

it.skipIf(process.getuid?.() !== 0)(
  'covers a socket bound where no jail shows it once it is renamed into a shown tree searched before',
  async () => {
    const [hidden, opt, workTree] = folders(
      '/root/patchsmith-unshown-',
      '/opt/patchsmith-into-',
      '/var/tmp/patchsmith-tree-'
    )
    // Bound by a relative path: no list names it; /opt is searched and holds nothing yet.
    await listen(hidden!, 'moving.sock')
    expect(covered(workTree!)).not.toContain(join(opt!, 'moving.sock'))
    renameSync(join(hidden!, 'moving.sock'), join(opt!, 'moving.sock'))
    expect(covered(workTree!)).toContain(join(opt!, 'moving.sock'))
  }
)
