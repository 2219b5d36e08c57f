/**
 * Holes found by an attack round on the jail (issue 24, points 1-3): each test fails on the code
 * it was written against and passes once the hole is closed. Same machinery as
 * sandbox-boundaries.test.ts: bubblewrap, unshare as root, and the sudo path as patchsmith-sudo.
 * Repositories live under /var/tmp (the jail's /tmp is private and would hide them anyway).
 */
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  jailLayout,
  Sandbox,
  startedInJail,
  startRaced,
  validationEnv,
  type BackendName
} from '../../src/sandbox/index.js'
import { gitDirs } from '../../src/git/index.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'
import { sudoJail } from '../support/sudo-jail.js'

const TOKEN = 'ghs_ATTACKcanary0123456789abcdefghijklmn'
const HEADER = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`

const PROBE = `const net = require('net'); const path = process.argv[2];
const s = net.connect({ path }); s.setTimeout(3000, () => { console.log('unix-closed'); process.exit(0) });
s.on('data', () => { console.log('unix-open'); process.exit(0) });
s.on('error', () => { console.log('unix-closed'); process.exit(0) });`

let outside: string
const sockets: Server[] = []
/** Host processes whose sockets are in trees the jail shows, by names no list holds. */
const listeners: ChildProcess[] = []
let shownFolder: string | undefined

/**
 * A host process in `cwd` that binds each of `names` by a relative path (as `ssh-agent -a
 * agent.sock` does), then renames or links some of them: resolves once all are in place.
 */
function listenIn(cwd: string, names: string[], after = ''): Promise<void> {
  const script = `const net = require('net'), fs = require('fs'); let left = ${names.length};
for (const name of ${JSON.stringify(names)}) net.createServer((c) => c.on('error', () => {}).end('hello'))
  .listen(name, () => { fs.chmodSync(name, 0o666); if (--left === 0) { ${after}; console.log('ready') } })`
  const child = spawn(process.execPath, ['-e', script], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit']
  })
  listeners.push(child)
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => data.toString().includes('ready') && resolve())
    child.on('exit', (code) => reject(new Error(`the socket listener ended (${code})`)))
  })
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], {
    cwd,
    stdio: 'ignore'
  })
}

/** A checkout at `<outside>/ws/<name>` whose .git/config carries the persisted token. */
function checkout(name: string): string {
  const dir = join(outside, 'ws', name)
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  writeFileSync(join(dir, 'a.txt'), 'a\n')
  writeFileSync(join(dir, 'probe.cjs'), PROBE)
  git(dir, 'add', '.')
  git(dir, 'commit', '-qm', 'init')
  git(dir, 'config', 'http.https://github.com/.extraheader', HEADER)
  return dir
}

beforeAll(() => {
  outside = mkdtempSync('/var/tmp/patchsmith-attack-')
  chmodSync(outside, 0o755)
})

/**
 * A daemon that binds a temporary name and renames it into place, and a socket reached through
 * a second (hard) link: /proc/net/unix names only the path given to bind(2).
 */
async function listenByOtherNames(): Promise<{ moved: string; hardLink: string }> {
  const answer = (socket: import('node:net').Socket) =>
    socket.on('error', () => undefined).end('hello')
  const listen = (path: string) =>
    new Promise<void>((resolve) => {
      const server = createServer(answer)
      sockets.push(server)
      server.listen(path, () => {
        chmodSync(path, 0o666)
        resolve()
      })
    })
  await listen(join(outside, 'bound.sock'))
  const moved = join(outside, 'moved.sock')
  renameSync(join(outside, 'bound.sock'), moved)
  await listen(join(outside, 'plain.sock'))
  const hardLink = join(outside, 'second-link.sock')
  linkSync(join(outside, 'plain.sock'), hardLink)
  return { moved, hardLink }
}

/** The same three under /opt, which the jail shows: only a search of the tree finds them. */
async function listenInShownFolder(): Promise<string> {
  shownFolder = mkdtempSync('/opt/patchsmith-sockets-')
  chmodSync(shownFolder, 0o755)
  await listenIn(
    shownFolder,
    ['relative.sock', 'bound.sock', 'first.sock'],
    "fs.renameSync('bound.sock', 'renamed.sock'); fs.linkSync('first.sock', 'second.sock')"
  )
  return shownFolder
}

// While a socket no list names where it is exists, every jail opened on this machine searches
// the trees it shows (/usr among them): each test's sockets go with it, not with the file.
afterEach(() => {
  for (const child of listeners.splice(0)) child.kill()
  for (const server of sockets.splice(0)) server.close()
  if (shownFolder) rmSync(shownFolder, { recursive: true, force: true })
  shownFolder = undefined
  for (const name of ['moved.sock', 'plain.sock', 'second-link.sock'])
    rmSync(join(outside, name), { force: true })
})

afterAll(() => {
  if (outside) execFileSync('rm', ['-rf', outside])
})

interface Jail {
  run(command: string): Promise<string>
  close(): void
}

/** `workTree` jailed the way Patchsmith jails it, under `backend`, with the runner's `vars`. */
async function openJail(
  backend: BackendName,
  workTree: string,
  vars: NodeJS.ProcessEnv = {},
  /** Folders hidden as the result and log folders are. */
  hidden: string[] = []
): Promise<Jail> {
  const layout = jailLayout({ ...process.env, ...vars }, workTree, gitDirs(workTree), hidden)
  const env = { ...validationEnv(process.env), PATH: '/usr/local/bin:/usr/bin:/bin' }
  if (backend !== 'sudo-unshare') {
    const sandbox = await Sandbox.open(layout, [backend], { maxTasks: 350 })
    expect(sandbox.unavailable).toEqual([])
    const once = (spec: ReturnType<Sandbox['spawnSpec']>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
        execFile(
          spec.file,
          spec.args,
          { cwd: workTree, env: spec.env, timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({
              code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
              stdout,
              stderr
            })
        )
      )
    return {
      // As Patchsmith runs a command: a jail that a host socket going stopped is made again.
      run: (command) =>
        startedInJail(async () => {
          const spec = sandbox.spawnSpec(command, workTree, env)
          const { code, stdout, stderr } = await once(spec)
          return { result: `${stdout}${stderr}`, raced: startRaced(spec, code, stdout, stderr) }
        }),
      close: () => sandbox.dispose()
    }
  }
  execFileSync('chown', ['-R', `${SUDO_USER}:${SUDO_USER}`, join(outside, 'ws')])
  return sudoJail(layout, env, 350)
}

describe.each(['bubblewrap', 'unshare', 'sudo-unshare'] as BackendName[])(
  'attacks on the %s jail',
  (backend) => {
    const skip = skipWithout(backend)

    it.skipIf(skip)(
      'reaches no host socket that /proc/net/unix names by another path (renamed, hard-linked)',
      async () => {
        const dir = checkout(`sockets-${backend}`)
        const { moved, hardLink } = await listenByOtherNames()
        const jail = await openJail(backend, dir)
        try {
          const out = await jail.run(`node probe.cjs ${moved}; node probe.cjs ${hardLink}`)
          expect(out).not.toContain('unix-open')
          expect(out.match(/unix-closed/g)).toHaveLength(2)
        } finally {
          jail.close()
        }
      }
    )

    it.skipIf(skip || process.getuid?.() !== 0)(
      'reaches no host socket in a shown tree bound by a relative path, renamed or linked after binding',
      async () => {
        const dir = checkout(`shown-sockets-${backend}`)
        const shown = await listenInShownFolder()
        // An agent an earlier step started in the checkout: `ssh-agent -a agent.sock`.
        await listenIn(dir, ['agent.sock'])
        const jail = await openJail(backend, dir)
        try {
          const names = ['relative.sock', 'renamed.sock', 'first.sock', 'second.sock']
          const probes = names.map((name) => `node probe.cjs ${join(shown, name)}`)
          const out = await jail.run([...probes, 'node probe.cjs agent.sock'].join('; '))
          expect(out).not.toContain('unix-open')
          expect(out.match(/unix-closed/g)).toHaveLength(5)
        } finally {
          jail.close()
        }
      }
    )

    it.skipIf(skip || process.getuid?.() !== 0)(
      'reaches no host socket mounted onto a file in /opt, nor one bound after the search through a link into /opt or the work tree',
      async () => {
        const dir = checkout(`late-sockets-${backend}`)
        const [hostDir, optDir] = ['/var/tmp/patchsmith-host-', '/opt/patchsmith-late-'].map(
          (prefix) => mkdtempSync(prefix)
        )
        chmodSync(optDir!, 0o755)
        // A daemon's socket mounted onto a file, as `docker run -v daemon.sock:…` does.
        const mounted = join(optDir!, 'docker.sock')
        writeFileSync(mounted, '')
        await listenIn(hostDir!, ['daemon.sock'])
        execFileSync('mount', ['--bind', join(hostDir!, 'daemon.sock'), mounted])
        // And a folder holding one mounted into /opt (`-v /var/run:/opt/run`): the list names
        // it under /var/tmp only.
        const [runDir, mountedRun] = [join(hostDir!, 'run'), join(optDir!, 'run')]
        for (const folder of [runDir, mountedRun]) mkdirSync(folder)
        await listenIn(runDir, [join(runDir, 'agent.sock')])
        execFileSync('mount', ['--bind', runDir, mountedRun])
        try {
          // The first jail searches the trees; the next sockets come after it, bound by paths
          // through links in a hidden folder: the lists name them there, not where they are.
          ;(await openJail(backend, dir)).close()
          for (const [link, target] of [
            [join(hostDir!, 'to-opt'), optDir!],
            [join(hostDir!, 'to-tree'), dir]
          ])
            symlinkSync(target!, link!)
          await listenIn(hostDir!, ['to-opt/late.sock', 'to-tree/late.sock'])
          const jail = await openJail(backend, dir)
          try {
            const paths = [
              mounted,
              join(mountedRun, 'agent.sock'),
              join(optDir!, 'late.sock'),
              'late.sock'
            ]
            const out = await jail.run(paths.map((path) => `node probe.cjs ${path}`).join('; '))
            expect(out).not.toContain('unix-open')
            expect(out.match(/unix-closed/g)).toHaveLength(4)
          } finally {
            jail.close()
          }
        } finally {
          execFileSync('umount', ['-l', mounted])
          spawnSync('umount', ['-l', join(optDir!, 'run')])
          for (const folder of [hostDir!, optDir!]) rmSync(folder, { recursive: true, force: true })
        }
      }
    )

    it.skipIf(skip)(
      'shows each jail the config as it is then: a token added between two jails is hidden, the rest shown anew',
      async () => {
        const dir = checkout(`config-again-${backend}`)
        git(dir, 'config', '--unset-all', 'http.https://github.com/.extraheader')
        git(dir, 'config', 'patchsmith.step', 'one')
        const show = async () => {
          const jail = await openJail(backend, dir)
          try {
            return await jail.run('cat .git/config; echo done')
          } finally {
            jail.close()
          }
        }
        expect(await show()).toMatch(/step = "one"[\s\S]*done/)
        // By file: the sudo jail's user owns the checkout now (no repository discovery for root).
        const config = join(dir, '.git', 'config')
        git(dir, 'config', '--file', config, 'patchsmith.step', 'two')
        git(dir, 'config', '--file', config, 'http.https://github.com/.extraheader', HEADER)
        const again = await show()
        expect(again).toMatch(/step = "two"[\s\S]*done/)
        expect(again).not.toMatch(/extraheader/i)
        expect(again).not.toContain(TOKEN.slice(4, 20))
      }
    )

    it.skipIf(skip)(
      'hides the token of a submodule whose name has several parts (.git/modules/a/b/c/d/config)',
      async () => {
        const dir = checkout(`submodule-${backend}`)
        // A Go-style vendored submodule: its name is its path, `vendor/github.com/org/lib`.
        const sub = join(dir, '.git/modules/vendor/github.com/org/lib')
        mkdirSync(sub, { recursive: true })
        git(sub, 'init', '-q', '--bare')
        git(sub, 'config', 'http.https://github.com/.extraheader', HEADER)
        const jail = await openJail(backend, dir)
        try {
          const out = await jail.run('grep -rh extraheader .git; echo done')
          expect(out).toContain('done')
          expect(out).not.toContain(TOKEN.slice(4, 20))
          expect(out).not.toMatch(/extraheader/i)
        } finally {
          jail.close()
        }
      }
    )

    it.skipIf(skip)(
      "hides the enclosing checkout's .git when the work tree is a repository inside it",
      async () => {
        const outer = checkout(`outer-${backend}`)
        const inner = join(outer, 'inner')
        mkdirSync(inner)
        git(inner, 'init', '-q', '-b', 'main')
        writeFileSync(join(inner, 'a.txt'), 'a\n')
        const jail = await openJail(backend, inner, { GITHUB_WORKSPACE: outer })
        try {
          const out = await jail.run('cat ../.git/config; echo done')
          expect(out).toContain('done')
          expect(out).not.toMatch(/extraheader/i)
        } finally {
          jail.close()
        }
      }
    )

    it.skipIf(skip)(
      "reads none of the host's secrets in /etc (password hashes, SSH host keys)",
      async () => {
        const dir = checkout(`etc-${backend}`)
        const jail = await openJail(backend, dir)
        try {
          const out = await jail.run(
            'cat /etc/shadow /etc/gshadow 2>/dev/null | wc -c; ls -A /etc/ssh 2>/dev/null | wc -l; echo done'
          )
          expect(out).toContain('done')
          expect(out.trim().split(/\s+/).slice(0, 2)).toEqual(['0', '0'])
          // The rest of /etc stays: users and groups resolve, TLS roots are there.
          expect(await jail.run('id -un; test -r /etc/passwd && echo passwd')).toContain('passwd')
        } finally {
          jail.close()
        }
      }
    )

    // bubblewrap mounts a private /dev (held); the sudo path's user cannot write /dev.
    it.skipIf(skip || backend !== 'unshare')(
      "cannot create or delete files in the host's /dev, even as root",
      async () => {
        const dir = checkout(`dev-${backend}`)
        const victim = `/dev/patchsmith-attack-victim-${process.pid}`
        const planted = `/dev/patchsmith-attack-planted-${process.pid}`
        writeFileSync(victim, 'host')
        const jail = await openJail(backend, dir)
        try {
          await jail.run(`rm -f ${victim}; echo jail > ${planted}`)
          expect(existsSync(victim)).toBe(true)
          expect(existsSync(planted)).toBe(false)
        } finally {
          jail.close()
          rmSync(victim, { force: true })
          rmSync(planted, { force: true })
        }
      }
    )
    it.skipIf(skip)('cannot read or write a log folder inside the work tree', async () => {
      const dir = checkout(`logs-${backend}`)
      const logs = join(dir, 'logs')
      mkdirSync(logs)
      writeFileSync(join(logs, '01-build.txt'), 'the real log\n')
      const jail = await openJail(backend, dir, {}, [logs])
      try {
        const out = await jail.run(
          'cat logs/01-build.txt; echo forged > logs/01-build.txt; echo x > logs/planted.txt; echo done'
        )
        expect(out).toContain('done')
        expect(out).not.toContain('the real log')
      } finally {
        jail.close()
      }
      expect(readFileSync(join(logs, '01-build.txt'), 'utf8')).toBe('the real log\n')
      expect(existsSync(join(logs, 'planted.txt'))).toBe(false)
    })
  }
)
