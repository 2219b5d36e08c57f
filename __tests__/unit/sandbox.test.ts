/**
 * The sandbox itself, with each Linux backend for real (bubblewrap, and util-linux unshare as
 * root): what a command inside can see, write and leave behind. A backend missing here skips
 * (support/sandbox-needs.ts) unless PATCHSMITH_REQUIRE_SANDBOX=1.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  jailPlan,
  Sandbox,
  unshareSpec,
  validationEnv,
  type BackendName
} from '../../src/sandbox/index.js'
import { SecretMasker } from '../../src/secrets/index.js'
import { runCommand } from '../../src/validation/index.js'
import { gitDirs } from '../../src/git/index.js'
import { createRepo, type TestRepo } from '../support/repo.js'
import { until } from '../support/until.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'

const BACKENDS: BackendName[] = ['bubblewrap', 'unshare']

/** Host PIDs whose command line holds `marker` (a daemon that outlived its sandbox). */
function hostProcesses(marker: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
        return cmdline.includes(marker) && state !== 'Z'
      } catch {
        return false
      }
    })
}

async function settle(check: () => boolean): Promise<boolean> {
  await until(check, 'the processes to settle').catch(() => undefined)
  return check()
}

describe.each(BACKENDS)('the %s sandbox', (backend) => {
  const skip = skipWithout(backend)
  let repo: TestRepo
  let sandbox: Sandbox
  let hidden: string
  const run = (command: string, env: Record<string, string> = {}) =>
    runCommand(command, {
      cwd: repo.dir,
      timeoutMs: 30_000,
      outputLimit: 100_000,
      masker: new SecretMasker(),
      env: { ...validationEnv(process.env), ...env },
      sandbox
    })

  beforeAll(async () => {
    if (skip) return
    repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'sandbox' })
    hidden = join(repo.root, 'runner-temp')
    mkdirSync(hidden)
    writeFileSync(join(hidden, 'set_env'), '')
    sandbox = await Sandbox.open(
      { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [hidden] },
      [backend]
    )
  })
  afterAll(() => {
    sandbox?.dispose()
    repo?.cleanup()
  })

  it.skipIf(skip)('is available on this machine (CI installs bubblewrap)', () => {
    expect(sandbox.unavailable).toEqual([])
    expect(sandbox.backend).toBe(backend)
  })

  it.skipIf(skip)(
    'lets the command write the work tree and a private temp folder, not .git',
    async () => {
      const result = await run(
        'echo x > new.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && ' +
          '(echo bad >> .git/config && echo wrote-config || echo config-read-only) && ' +
          '(git commit -q --allow-empty -m sneaky 2>/dev/null && echo committed || echo no-commit)'
      )
      expect(result.exit_code, result.stderr).toBe(0)
      expect(result.stdout).toContain('config-read-only')
      expect(result.stdout).toContain('no-commit')
      expect(readFileSync(join(repo.dir, 'new.txt'), 'utf8')).toBe('x\n')
      expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).not.toContain('bad')
      expect(repo.git('rev-list', '--count', 'HEAD')).toBe('1')
    }
  )

  it.skipIf(skip)(
    'shows the command its own processes only: no parent environ, no parent cmdline',
    async () => {
      const result = await run(
        `for p in /proc/[0-9]*; do echo "$p"; done; cat /proc/${process.pid}/environ 2>/dev/null && echo leaked || echo hidden`
      )
      const pids = result.stdout.split('\n').filter((line) => line.startsWith('/proc/'))
      expect(pids.length).toBeLessThanOrEqual(6)
      expect(result.stdout).toContain('hidden')
    }
  )

  it.skipIf(skip)('hides the runner folders: a GITHUB_ENV write lands nowhere', async () => {
    const result = await run(
      `ls -A ${hidden}; echo NODE_OPTIONS=--require=/x >> ${hidden}/set_env; echo done`
    )
    expect(result.stdout.trim()).toBe('done')
    expect(readFileSync(join(hidden, 'set_env'), 'utf8')).toBe('')
  })

  it.skipIf(skip)('kills a setsid daemon when the command ends', async () => {
    const marker = `patchsmith-daemon-${backend}-${process.pid}`
    const result = await run(
      `setsid sh -c 'while :; do date > daemon.txt; sleep 0.05; done; : ${marker}' >/dev/null 2>&1 < /dev/null & ` +
        // Ends once the daemon has written, however long a loaded machine takes to start it.
        'until [ -s daemon.txt ]; do sleep 0.01; done; echo started'
    )
    expect(result.stdout).toContain('started')
    expect(await settle(() => hostProcesses(marker).length === 0)).toBe(true)
    const stamp = readFileSync(join(repo.dir, 'daemon.txt'), 'utf8')
    await new Promise((r) => setTimeout(r, 300))
    expect(readFileSync(join(repo.dir, 'daemon.txt'), 'utf8')).toBe(stamp)
  })

  it.skipIf(skip)(
    "keeps none of root's powers: no remount of .git, no unmount of what hides, no sudo",
    async () => {
      writeFileSync(join(hidden, 'secret'), 'runner-secret')
      const result = await run(
        [
          'grep CapEff /proc/self/status',
          '(mount -o remount,rw .git 2>/dev/null && echo bad >> .git/config && echo remounted) || echo no-remount',
          `(umount ${hidden} 2>/dev/null && echo unmounted) || echo no-umount`,
          `cat ${hidden}/secret 2>/dev/null || echo still-hidden`,
          '(sudo -n true 2>/dev/null && echo sudo-worked) || echo no-sudo'
        ].join('; ')
      )
      expect(result.stdout).toContain('no-remount')
      expect(result.stdout).toContain('no-umount')
      expect(result.stdout).toContain('still-hidden')
      expect(result.stdout).toContain('no-sudo')
      expect(result.stdout).not.toContain('runner-secret')
      // As root, only chown, dac_override and fowner (files of other owners in the work tree).
      const effective = BigInt(`0x${/CapEff:\s+([0-9a-f]+)/.exec(result.stdout)![1]}`)
      expect(effective & ~0b1011n).toBe(0n)
      expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).not.toContain('bad')
    }
  )

  it.skipIf(skip)('sees the allowlisted environment only', async () => {
    const result = await run('env', { PATCHSMITH_ONLY_IF_LISTED: 'x' })
    expect(result.stdout).toContain('PATH=')
    expect(result.stdout).toContain('PATCHSMITH_ONLY_IF_LISTED=x')
    expect(existsSync(join(repo.dir, '.git'))).toBe(true)
  })
})

/*
 * The GitHub-hosted runner's path: a user with passwordless sudo, for whom the mounts are made
 * as root before the command drops back to that user. .ci/run creates such a user
 * (patchsmith-sudo) on CI; elsewhere these tests skip, and the run ends with one line saying why.
 */
const sudoUser = (() => {
  if (skipWithout('sudo-unshare')) return undefined
  try {
    const [uid, gid] = ['-u', '-g'].map((flag) =>
      Number(execFileSync('id', [flag, SUDO_USER], { encoding: 'utf8' }).trim())
    )
    return { uid: uid!, gid: gid!, groups: [gid!] }
  } catch {
    return undefined
  }
})()

describe.skipIf(skipWithout('sudo-unshare'))(
  'the sudo-unshare sandbox, as a runner user with passwordless sudo',
  () => {
    it('runs the command as that user, jailed, and sudo inside cannot take root back', async () => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'sandbox-sudo' })
      const hidden = join(repo.root, 'runner-temp')
      const temp = join(repo.root, 'private-temp')
      try {
        mkdirSync(hidden)
        mkdirSync(temp)
        writeFileSync(join(hidden, 'secret'), 'runner-secret')
        execFileSync('chown', ['-R', `${sudoUser!.uid}:${sudoUser!.gid}`, repo.root])
        execFileSync('chmod', ['755', repo.root])
        const programs = Object.fromEntries(
          ['unshare', 'sudo', 'setpriv'].map((name) => [
            name,
            execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim()
          ])
        )
        const command = [
          'id -u',
          'touch written-by-command && echo work-tree-writable',
          '(echo bad >> .git/config 2>/dev/null && echo wrote-config) || echo config-read-only',
          `cat ${hidden}/secret 2>/dev/null || echo still-hidden`,
          'for p in /proc/[0-9]*; do echo "$p"; done | wc -l',
          '(sudo -n true 2>/dev/null && echo sudo-worked) || echo no-sudo',
          '(mount -o remount,rw .git 2>/dev/null && echo remounted) || echo no-remount'
        ].join('; ')
        const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [hidden] }
        const spec = unshareSpec(
          programs,
          jailPlan(layout, []),
          temp,
          command,
          repo.dir,
          { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
          true,
          sudoUser!
        )
        // As the runner user, who then asks sudo for the mounts, as Patchsmith would.
        const out = execFileSync('runuser', ['-u', SUDO_USER, '--', spec.file, ...spec.args], {
          cwd: repo.dir,
          env: spec.env,
          encoding: 'utf8'
        }).split('\n')
        expect(out[0]).toBe(String(sudoUser!.uid))
        expect(out).toContain('work-tree-writable')
        expect(out).toContain('config-read-only')
        expect(out).toContain('still-hidden')
        expect(Number(out[4])).toBeLessThanOrEqual(6)
        expect(out).toContain('no-sudo')
        expect(out).toContain('no-remount')
        expect(readFileSync(join(repo.dir, '.git/config'), 'utf8')).not.toContain('bad')
      } finally {
        execFileSync('rm', ['-rf', repo.root])
      }
    })
  }
)

describe('Sandbox.open', () => {
  it('reports why no backend works, and runs bare then', async () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'sandbox-none' })
    try {
      const sandbox = await Sandbox.open(
        { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] },
        []
      )
      expect(sandbox.active).toBe(false)
      expect(sandbox.spawnSpec('true', repo.dir, {}).file).toBe('/bin/sh')
    } finally {
      repo.cleanup()
    }
  })
})

describe('Sandbox.open, the programs it runs as root outside the jail', () => {
  it.skipIf(skipWithout('bubblewrap'))(
    'takes none from a relative PATH entry (a folder of the work tree), where validation writes',
    async () => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'sandbox-path' })
      const saved = { path: process.env.PATH, cwd: process.cwd() }
      try {
        mkdirSync(join(repo.dir, 'bin'))
        for (const name of ['bwrap', 'unshare', 'find', 'mount']) {
          writeFileSync(join(repo.dir, 'bin', name), `#!/bin/sh\nexec /usr/bin/${name} "$@"\n`)
          chmodSync(join(repo.dir, 'bin', name), 0o755)
        }
        process.chdir(repo.dir)
        process.env.PATH = `bin:${saved.path}`
        const sandbox = await Sandbox.open(
          { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] },
          ['bubblewrap']
        )
        try {
          const overlay = sandbox.overlay()
          const spec = sandbox.spawnSpec('true', repo.dir, {}, { overlay })
          overlay?.dispose()
          const programs = [spec.file, ...spec.args].filter((arg) =>
            /(^|\/)(bwrap|unshare|find|mount)$/.test(arg)
          )
          expect(programs.length).toBeGreaterThan(0)
          expect(programs.filter((program) => !program.startsWith('/'))).toEqual([])
        } finally {
          sandbox.dispose()
        }
      } finally {
        process.env.PATH = saved.path
        process.chdir(saved.cwd)
        repo.cleanup()
      }
    }
  )
})

describe('the programs that build the jail', () => {
  it.skipIf(skipWithout('bubblewrap'))(
    'are never taken from a PATH folder inside the work tree: by its path, a `..name` folder, through a link, or a link there to the real one (attack rounds 13 and 14)',
    async () => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'sandbox-path' })
      const marker = join(repo.root, 'ran-on-host')
      const real = (name: string) =>
        execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim()
      // What a validation command could rewrite for the next jail: run as root, outside it
      // (bwrap starts it; git reads the repository's config files for their covers).
      const fakeIn = (folder: string) => {
        mkdirSync(folder, { recursive: true })
        for (const name of ['bwrap', 'git']) {
          const fake = join(folder, name)
          writeFileSync(fake, `#!/bin/sh\ntouch '${marker}'\nexec '${real(name)}' "$@"\n`)
          chmodSync(fake, 0o755)
        }
        return folder
      }
      const linked = join(repo.root, 'tools')
      execFileSync('ln', ['-s', fakeIn(join(repo.dir, 'bin')), linked])
      // A link in the tree to the real program: the command can replace the link.
      mkdirSync(join(repo.dir, 'links'))
      for (const name of ['bwrap', 'git'])
        execFileSync('ln', ['-s', real(name), join(repo.dir, 'links', name)])
      const entries = [
        join(repo.dir, 'bin'),
        linked,
        fakeIn(join(repo.dir, '..bin')),
        join(repo.dir, 'links')
      ]
      const saved = process.env.PATH
      try {
        for (const entry of entries) {
          process.env.PATH = `${entry}:${saved}`
          const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] }
          const sandbox = await Sandbox.open(layout, ['bubblewrap'], { overlay: false })
          try {
            expect(sandbox.active).toBe(true)
            const spec = sandbox.spawnSpec('true', repo.dir, { PATH: '/usr/bin:/bin' })
            expect(
              [spec.file, ...spec.args].some((arg) => arg.startsWith(entry)),
              entry
            ).toBe(false)
          } finally {
            sandbox.dispose()
          }
          expect(existsSync(marker), entry).toBe(false)
        }
      } finally {
        process.env.PATH = saved
        repo.cleanup()
      }
    }
  )
})
