/**
 * A host socket in a tree the jail shows is covered by a mount on its path. When the socket goes
 * between the jail's plan and its start (its daemon stopped, its folder removed), bubblewrap
 * cannot make the cover's mount point in the read-only root and stops before the command runs:
 * that must never read as the command's own failure (exit 1). Found in the suite, where a test's
 * socket folder under /opt went while another file's run made its jail.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ObjectQuarantine } from '../../src/change/change-objects.js'
import { Git, gitDirs } from '../../src/git/index.js'
import { jailLayout, Sandbox, type BackendName } from '../../src/sandbox/index.js'
import { jailedCommand } from '../support/jailed-command.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { skipWithout } from '../support/sandbox-needs.js'

const undo: Array<() => void> = []
afterEach(() => {
  while (undo.length > 0) undo.pop()!()
})

/**
 * Folders holding this file's sockets, searchable by every user, as a socket's folder on a
 * runner is: a root socket another user cannot stat makes each hosted-runner run of the other
 * test files meanwhile search the host's trees for it (host-sockets.ts), seconds of CPU each.
 */
function openToOthers(...folders: string[]): void {
  for (const folder of folders) chmodSync(folder, 0o755)
}

/** A checkout, a socket listening in a folder of /opt, and a bubblewrap sandbox for it. */
async function world(): Promise<{ repo: TestRepo; sandbox: Sandbox; folder: string }> {
  const repo = createRepo({ files: { 'a.txt': 'a\n' } })
  undo.push(() => repo.cleanup())
  const folder = mkdtempSync('/opt/patchsmith-race-')
  openToOthers(repo.root, folder)
  const server: Server = createServer((socket) => socket.end())
  await new Promise<void>((resolve) => server.listen(join(folder, 'agent.sock'), resolve))
  undo.push(() => rmSync(folder, { recursive: true, force: true }))
  undo.push(() => server.close())
  const layout = jailLayout(process.env, repo.dir, gitDirs(repo.dir), [])
  const sandbox = await Sandbox.open(layout, ['bubblewrap'])
  undo.push(() => sandbox.dispose())
  expect(sandbox.backend).toBe('bubblewrap')
  return { repo, sandbox, folder }
}

/**
 * The jail's specs as they are made, `folder` removed right after the first (as a daemon stopping
 * at that moment would: the first spec covers a path that is gone when bubblewrap starts). The
 * files beside this one bind and remove sockets of their own meanwhile (each in a `patchsmith-…`
 * folder, in /tmp or /opt): the specs kept here cover only the test's own sockets and the host's.
 * `sees`: what the run is given. 'all' covers (one of theirs gone at a jail's start is a race of
 * its own, made again as it should be: bubblewrap fails on its mount whatever the list says), or
 * only 'own' (a test of when a failure is not taken for a race, which one of theirs going while
 * the command runs would turn into one).
 */
function goneAfterFirstSpec(sandbox: Sandbox, folder: string, sees: 'all' | 'own' = 'all') {
  const cover = (path: string) => path.startsWith(`${folder}/`) || !path.includes('/patchsmith-')
  const specs: Array<ReturnType<Sandbox['spawnSpec']>> = []
  const made = sandbox.spawnSpec.bind(sandbox)
  sandbox.spawnSpec = (...args) => {
    const spec = made(...args)
    const own = { ...spec, covers: spec.covers?.filter(cover) }
    specs.push(own)
    if (specs.length === 1) rmSync(folder, { recursive: true, force: true })
    return sees === 'all' ? spec : own
  }
  return specs
}

/** Made again for the test's own race: once at least, and at most JAIL_STARTS (3) in all. */
function madeAgain(specs: readonly unknown[]): void {
  expect(specs.length).toBeGreaterThanOrEqual(2)
  expect(specs.length).toBeLessThanOrEqual(3)
}

describe.skipIf(skipWithout('bubblewrap') || process.getuid?.() !== 0)(
  'a host socket that goes while its jail is made',
  () => {
    it.each([false, true])(
      'runs the validation command once, with its own exit code and output (overlay: %s)',
      async (onOverlay) => {
        const { repo, sandbox, folder } = await world()
        const overlay = onOverlay ? sandbox.overlay() : undefined
        if (onOverlay) expect(overlay).toBeDefined()
        undo.push(() => overlay?.dispose())
        const specs = goneAfterFirstSpec(sandbox, folder)
        const result = await jailedCommand('echo ran >> ran.txt; cat ran.txt; exit 3', {
          cwd: repo.dir,
          sandbox,
          overlay
        })
        expect(specs[0]!.covers).toContain(join(folder, 'agent.sock'))
        expect(result.stderr).toBe('')
        expect([result.exit_code, result.stdout.trim()]).toEqual([3, 'ran'])
        madeAgain(specs)
      }
    )

    it("runs once a command that prints bubblewrap's words and fails: no cover went", async () => {
      const { repo, sandbox } = await world()
      const specs = goneAfterFirstSpec(sandbox, '/nonexistent/patchsmith-race', 'own')
      const say = "bwrap: Can't mkdir parents for /opt/x: Read-only file system"
      const run = () =>
        jailedCommand(`echo ran >> ran.txt; echo "${say}" >&2; exit 1`, { cwd: repo.dir, sandbox })
      // A jail that did not start because a socket of the files beside this one went meanwhile
      // (bubblewrap names its folder; the command never ran) is tried again here, as the run
      // would have had it been given their covers: this test looks at a command's own failure.
      const othersRaced = (stderr: string) =>
        stderr.startsWith('bwrap: ') && stderr.includes('/patchsmith-') && !stderr.includes(say)
      let result = await run()
      for (let tries = 1; tries < 3 && othersRaced(result.stderr); tries++) {
        expect(existsSync(join(repo.dir, 'ran.txt'))).toBe(false)
        specs.length = 0
        result = await run()
      }
      expect([result.exit_code, result.stderr.trim()]).toEqual([1, say])
      expect(specs).toHaveLength(1)
      expect(repo.read('ran.txt')).toBe('ran\n')
    })

    it('runs a commit with the repository hooks, in the jail', async () => {
      const { repo, sandbox, folder } = await world()
      writeFileSync(join(repo.dir, '.git/hooks/pre-commit'), '#!/bin/sh\necho hooked >&2\n', {
        mode: 0o755
      })
      const git = await Git.open(repo.dir)
      git.hookJail = { sandbox, env: { PATH: '/usr/bin:/bin' } }
      const specs = goneAfterFirstSpec(sandbox, folder)
      writeFileSync(join(repo.dir, 'a.txt'), 'b\n')
      await git.exec(['add', 'a.txt'])
      // Its objects go to a quarantine: the store is read-only in the jail.
      const quarantine = ObjectQuarantine.create(
        join(repo.dir, '.git'),
        join(repo.dir, '.git/objects')
      )
      undo.push(() => quarantine.dispose())
      const out = await git.exec(['commit', '-q', '-m', 'b'], { hooks: true, env: quarantine.env })
      expect(out.stderr).toContain('hooked')
      expect(await quarantine.adopt(git, [repo.git('rev-parse', 'HEAD')])).toEqual([])
      expect(repo.git('log', '-1', '--format=%s')).toBe('b')
      madeAgain(specs)
    })
  }
)

describe.skipIf(skipWithout('bubblewrap') || process.getuid?.() !== 0)(
  'a host socket in the work tree whose folder a command moves (attack round)',
  () => {
    const PROBE = `node -e 'for (const p of ["sock/agent.sock", "sock2/agent.sock", "sock3/agent.sock"]) { const c = require("net").connect(p); c.on("data", (d) => console.log("REACHED", p, String(d).trim())); c.on("error", () => {}) }'`

    async function socketInTree(
      backend: BackendName = 'bubblewrap'
    ): Promise<{ repo: TestRepo; sandbox: Sandbox }> {
      const repo = createRepo({ files: { 'a.txt': 'a\n' } })
      undo.push(() => repo.cleanup())
      openToOthers(repo.root)
      mkdirSync(join(repo.dir, 'sock'))
      const server = createServer((socket) => socket.end('SECRET-FROM-HOST\n'))
      await new Promise<void>((resolve) =>
        server.listen(join(repo.dir, 'sock/agent.sock'), resolve)
      )
      undo.push(() => server.close())
      const sandbox = await Sandbox.open(jailLayout(process.env, repo.dir, gitDirs(repo.dir), []), [
        backend
      ])
      undo.push(() => sandbox.dispose())
      expect(sandbox.backend).toBe(backend)
      return { repo, sandbox }
    }

    const run = (command: string, repo: TestRepo, sandbox: Sandbox) =>
      jailedCommand(command, { cwd: repo.dir, sandbox })

    it('is covered where it went, command after command', async () => {
      const { repo, sandbox } = await socketInTree()
      const move = 'if [ -d sock ]; then mv sock sock2; elif [ -d sock2 ]; then mv sock2 sock3; fi'
      const outputs: string[] = []
      for (let i = 0; i < 3; i++)
        outputs.push((await run(`${PROBE}; sleep 1; ${move}`, repo, sandbox)).stdout)
      expect(outputs.join('')).not.toContain('REACHED')
      expect(lstatSync(join(repo.dir, 'sock3/agent.sock')).isSocket()).toBe(true)
    })

    // Found by the session-18 attack round: the socket's path still held a socket, so it read as
    // named where it was and the work tree was not searched again.
    it.each((['bubblewrap', 'unshare'] as BackendName[]).filter((name) => !skipWithout(name)))(
      'is covered where it went when a dead socket is left at its old path (%s)',
      async (backend) => {
        const { repo, sandbox } = await socketInTree(backend)
        const plant = `mv sock sock2 && mkdir sock && node -e 'require("net").createServer().listen("sock/agent.sock", () => process.exit(0))'`
        const first = await run(`${PROBE}; sleep 1; ${plant}`, repo, sandbox)
        expect(lstatSync(join(repo.dir, 'sock/agent.sock')).isSocket()).toBe(true)
        const second = await run(`${PROBE}; sleep 1`, repo, sandbox)
        expect(first.stdout + second.stdout).not.toContain('REACHED')
      }
    )

    it('is covered where it went when the command fails as bubblewrap would, and runs at most 3 times', async () => {
      const { repo, sandbox } = await socketInTree()
      const move = 'if [ -d sock ]; then mv sock sock2; elif [ -d sock2 ]; then mv sock2 sock3; fi'
      const say = 'echo "bwrap: Can\'t mkdir parents: x" >&2; exit 1'
      const result = await run(
        `echo ran >> ran.txt; ${PROBE} > probe.txt; sleep 1; ${move}; ${say}`,
        repo,
        sandbox
      )
      expect(result.exit_code).toBe(1)
      expect(repo.read('ran.txt').split('\n').filter(Boolean).length).toBeLessThanOrEqual(3)
      expect(repo.read('probe.txt')).not.toContain('REACHED')
    })
  }
)
