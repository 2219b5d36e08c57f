/**
 * The seccomp filter every jailed command runs under (src/sandbox/attribute-filter.ts): no
 * extended attribute or ACL set or removed, no inode flag set, no io_uring; everything else as
 * before. With each backend for real: bubblewrap and unshare as root, and unshare through sudo
 * as a GitHub-hosted runner's user (bubblewrap as that user: e2e/leftovers-attributes.test.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { attributeFilterProgram, writeAttributeFilter } from '../../src/sandbox/attribute-filter.js'
import { jailEnvironment } from '../../src/sandbox/environment.js'
import { gitDirs } from '../../src/git/index.js'
import { jailPlan, Sandbox, unshareSpec, type BackendName } from '../../src/sandbox/index.js'
import { attributesOf } from '../support/attributes.js'
import { cleanupAfterEach } from '../support/cleanups.js'
import { createRepo } from '../support/repo.js'
import { skipWithout, SUDO_USER } from '../support/sandbox-needs.js'

const cleanups = cleanupAfterEach()
const X64 = process.arch === 'x64'
const CALLS = X64
  ? { setxattr: 188, getxattr: 191, removexattr: 197, keyctl: 250 }
  : { setxattr: 5, getxattr: 8, removexattr: 14, keyctl: 219 }

/** Each call's return and errno, a line each: set, get, remove, set flags, io_uring. */
const TRY = `perl -e '${[
  'my ($d, $n, $v, $b) = (".", "user.patchsmith", "x", "\\0" x 120);',
  `print "set ", syscall(${CALLS.setxattr}, $d, $n, $v, 1, 0), " ", $!+0, "\\n";`,
  `$! = 0; print "get ", syscall(${CALLS.getxattr}, $d, $n, $b, 120), " ", $!+0, "\\n";`,
  `$! = 0; print "remove ", syscall(${CALLS.removexattr}, $d, $n), " ", $!+0, "\\n";`,
  'open(my $h, "<", $d); my $f = pack("L", 0x40);',
  '$! = 0; print "flags ", (ioctl($h, 0x40086602, $f) ? 0 : -1), " ", $!+0, "\\n";',
  '$! = 0; print "uring ", syscall(425, 8, $b), " ", $!+0, "\\n";',
  // file_setattr (Linux 6.17), nodump as an xflag; then ext4's own set-version ioctl.
  'my $fa = pack("QLLLL", 0x80, 0, 0, 0, 0); my $at = -100;',
  '$! = 0; print "setattr ", syscall(469, $at, $d, $fa, 24, 0), " ", $!+0, "\\n";',
  'my $gen = pack("L", 7);',
  '$! = 0; print "version ", (ioctl($h, 0x40086604, $gen) ? 0 : -1), " ", $!+0, "\\n";',
  // The user's keyring (KEYCTL_GET_KEYRING_ID of KEY_SPEC_USER_KEYRING): it outlives the jail.
  `$! = 0; print "keyring ", syscall(${CALLS.keyctl}, 0, -4, 0), " ", $!+0, "\\n";`
].join(' ')}'; echo still-runs`

const REFUSED = [
  'set -1 95',
  // The attribute is not there (ENODATA): reading is as before.
  'get -1 61',
  'remove -1 95',
  'flags -1 1',
  'uring -1 38',
  'setattr -1 38',
  'version -1 1',
  'keyring -1 38',
  'still-runs'
]

/**
 * A module, in the work tree (what the jail shows), that PERL5OPT loads into any perl started
 * with this environment: it sets an attribute on its own folder.
 */
function perlInjection(workTree: string): Record<string, string> {
  const lib = join(workTree, 'lib')
  mkdirSync(lib)
  const set = `syscall(${CALLS.setxattr}, my $d = "${lib}", my $n = "user.injected", my $v = "x", 1, 0)`
  writeFileSync(join(lib, 'Evil.pm'), `package Evil; ${set}; print "evil-ran\\n"; 1;\n`)
  execFileSync('chmod', ['-R', 'a+rX', lib])
  return { PERL5LIB: lib, PERL5OPT: '-MEvil' }
}

describe('the program', () => {
  it.each(['x64', 'arm64'])(
    'on %s: every jump lands inside it, and it ends in a return',
    (arch) => {
      const program = attributeFilterProgram(arch)!
      const count = program.length / 8
      expect(Number.isInteger(count) && count > 10).toBe(true)
      for (let i = 0; i < count; i++) {
        const [op, jt, jf] = [program.readUInt16LE(i * 8), program[i * 8 + 2]!, program[i * 8 + 3]!]
        if ((op & 0x07) === 0x05) expect(i + 1 + Math.max(jt, jf)).toBeLessThan(count)
      }
      expect(program.readUInt16LE((count - 1) * 8)).toBe(0x06)
    }
  )

  it('none on a host whose call numbers it does not know', () => {
    expect(attributeFilterProgram('ppc64')).toBeUndefined()
  })
})

describe.each<BackendName>(['bubblewrap', 'unshare'])('as root, %s', (backend) => {
  it.skipIf(skipWithout(backend))(
    'refuses setting and removing attributes, flags, io_uring and newer calls; reads as before; PERL5OPT runs nothing before it',
    async () => {
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'attribute-filter' })
      cleanups.push(() => repo.cleanup())
      const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] }
      const sandbox = await Sandbox.open(layout, [backend], { overlay: false })
      cleanups.push(() => sandbox.dispose())
      expect(sandbox.backend).toBe(backend)
      const env = { PATH: '/usr/bin:/bin', ...perlInjection(repo.dir) }
      const spec = sandbox.spawnSpec(TRY, repo.dir, env)
      const out = execFileSync(spec.file, spec.args, { cwd: repo.dir, env: spec.env })
      const lines = String(out).split('\n').filter(Boolean)
      // The command's own perl loads the module (under the filter); the loader's did not.
      expect(lines).toEqual(['evil-ran', ...REFUSED])
      expect(attributesOf(join(repo.dir, 'lib')).names).toEqual([])
      expect(attributesOf(repo.dir).names).toEqual([])
      // A locale this machine lacks: perl, loading the filter, says nothing of it.
      const quiet = sandbox.spawnSpec('true', repo.dir, { ...env, LANG: 'xx_XX.UTF-8' })
      const done = spawnSync(quiet.file, quiet.args, { cwd: repo.dir, env: quiet.env })
      expect(String(done.stderr)).toBe('')
      expect(done.status).toBe(0)
    }
  )
})

describe("as a hosted runner's user, unshare through sudo", () => {
  it.skipIf(skipWithout('sudo-unshare'))(
    'refuses them too, the filter loaded after the user is dropped to',
    () => {
      const dir = mkdtempSync('/tmp/patchsmith-filter-')
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
      const repo = createRepo({ files: { 'a.txt': 'a\n' }, prefix: 'attribute-filter-sudo' })
      cleanups.push(() => repo.cleanup())
      const env = { PATH: '/usr/bin:/bin', ...perlInjection(repo.dir) }
      execFileSync('chown', ['-R', SUDO_USER, repo.root, dir])
      execFileSync('chmod', ['755', repo.root, dir])
      mkdirSync(join(dir, 'stash'))
      const filter = writeAttributeFilter(dir)!
      const which = (name: string) =>
        execFileSync('sh', ['-c', `PATH=$PATH:/usr/sbin:/sbin command -v ${name}`], {
          encoding: 'utf8'
        }).trim()
      const programs = Object.fromEntries(
        ['unshare', 'sudo', 'setpriv', 'perl', 'env'].map((name) => [name, which(name)])
      )
      const uid = Number(execFileSync('id', ['-u', SUDO_USER], { encoding: 'utf8' }))
      const gid = Number(execFileSync('id', ['-g', SUDO_USER], { encoding: 'utf8' }))
      const layout = { workTree: repo.dir, gitDirs: gitDirs(repo.dir), hidden: [] }
      // Split as Sandbox.spawnSpec splits it: PERL5OPT reaches only the command's own shell.
      const { host, restore } = jailEnvironment(env)
      const spec = unshareSpec(
        programs,
        jailPlan(layout, []),
        join(dir, 'stash'),
        `${restore}id -u; ${TRY}`,
        repo.dir,
        host,
        true,
        { uid, gid },
        filter
      )
      const out = execFileSync(which('runuser'), ['-u', SUDO_USER, '--', spec.file, ...spec.args], {
        cwd: repo.dir,
        env: spec.env,
        encoding: 'utf8'
      })
      expect(out.split('\n').filter(Boolean)).toEqual([String(uid), 'evil-ran', ...REFUSED])
      expect(attributesOf(join(repo.dir, 'lib')).names).toEqual([])
    }
  )
})
