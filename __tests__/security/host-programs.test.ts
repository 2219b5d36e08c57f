/**
 * Programs Patchsmith's own git starts on the host by name (`ssh` for an ssh remote, a credential
 * helper) come from its PATH: never from an entry into the work tree, where a committed or
 * model-edited `bin/ssh` would run as root outside the jail with the push token in its
 * environment (attack round 15).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/index.js'
import { hostPath, trustedOnHost } from '../../src/sandbox/index.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'

const cleanups = cleanupAfterEach()

/** An ssh's script that serves `git@host:PATH` from `root`: what the runner's own would reach. */
function forwarding(root: string): string {
  return `for a; do last=$a; done\ncd '${root}' && exec /bin/sh -c "$last"\n`
}

describe("git's own programs on the host", () => {
  it.each([
    ['an absolute entry into the work tree', (dir: string) => join(dir, 'bin')],
    ['a relative entry', () => 'bin'],
    ['an empty entry (the working folder)', () => '']
  ])('never come from %s: a committed ssh does not run, the runner’s does', async (_, entry) => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-ssh' })
    cleanups.push(() => repo.cleanup())
    const marker = join(repo.root, 'ran-on-host')
    const served = join(repo.root, 'served', 'acme')
    mkdirSync(served, { recursive: true })
    symlinkSync(repo.origin, join(served, 'widgets.git'))
    const planted = `#!/bin/sh\ntouch '${marker}'\n${forwarding(join(repo.root, 'served'))}`
    for (const path of ['bin/ssh', 'ssh']) {
      repo.write(path, planted)
      chmodSync(join(repo.dir, path), 0o755)
    }
    repo.commitAll('an ssh of the repository')
    repo.git('remote', 'set-url', 'origin', 'git@github.com:acme/widgets.git')
    const runner = join(repo.root, 'runner-bin')
    mkdirSync(runner)
    writeFileSync(join(runner, 'ssh'), `#!/bin/sh\n${forwarding(join(repo.root, 'served'))}`, {
      mode: 0o755
    })
    const saved = process.env.PATH
    process.env.PATH = `${entry(repo.dir)}:${runner}:${saved}`
    try {
      const git = await Git.open(repo.dir)
      const output = await git.exec(['ls-remote', 'origin', 'refs/heads/main'], { network: true })
      expect(output.stdout).toContain(repo.gitOrigin('rev-parse', 'main'))
    } finally {
      process.env.PATH = saved
    }
    expect(existsSync(marker)).toBe(false)
  })

  it('trust no way through the tree: a link chain passing a link there, an alias of /proc/self, a bind mount of the tree (attack round 16)', () => {
    const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'host-trust' })
    cleanups.push(() => repo.cleanup())
    const system = dirname(
      execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
    )
    // A host link to a committed link to the system's folder: the tree's link can be repointed.
    symlinkSync(system, join(repo.dir, 'toolbox'))
    symlinkSync(join(repo.dir, 'toolbox'), join(repo.root, 'tools'))
    expect(trustedOnHost(join(repo.root, 'tools', 'git'), [repo.dir])).toBe(false)
    expect(trustedOnHost(join(system, 'git'), [repo.dir])).toBe(true)
    // A host link to /proc/self: its cwd is the work tree in git started there.
    symlinkSync('/proc/self', join(repo.root, 'self'))
    expect(trustedOnHost(join(repo.root, 'self', 'cwd', 'bin'), [repo.dir])).toBe(false)
    // A folder that is not there (yet) is not trusted either.
    expect(trustedOnHost(join(repo.root, 'later', 'bin'), [repo.dir])).toBe(false)
    if (process.getuid?.() !== 0) return
    const alias = join(repo.root, 'alias')
    mkdirSync(alias)
    mkdirSync(join(repo.dir, 'bin'))
    execFileSync('mount', ['--bind', repo.dir, alias])
    try {
      expect(trustedOnHost(join(alias, 'bin'), [repo.dir])).toBe(false)
    } finally {
      execFileSync('umount', [alias])
    }
  })

  it('get a PATH of trusted entries alone, never an empty one', () => {
    const tree = '/work/tree'
    const path = [
      `${tree}/bin`,
      'bin',
      '',
      '/proc/self/cwd/bin',
      '/dev/fd/3',
      `${tree}/../tree/node_modules/.bin`,
      '/usr/bin'
    ].join(':')
    expect(hostPath(path, [tree])).toBe('/usr/bin')
    expect(hostPath(`bin::${tree}/bin`, [tree])).toBe('/usr/bin:/bin')
    expect(hostPath(undefined, [tree])).toBe('/usr/bin:/bin')
    expect(trustedOnHost('/proc/self/cwd/bin/git', [])).toBe(false)
    expect(trustedOnHost('/usr/bin/git', [tree])).toBe(true)
  })
})
