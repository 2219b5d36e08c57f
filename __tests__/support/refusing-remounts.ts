/**
 * A `perl` that runs the real one under a seccomp filter refusing every remount (mount(2) with
 * MS_REMOUNT: EPERM), as a kernel or a locked mount would: the unshare jail's setup is perl making
 * the mount calls itself (src/sandbox/unshare-setup.ts), so the refusal comes from the kernel.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const CALLS: Record<string, { mount: number; prctl: number }> = {
  x64: { mount: 165, prctl: 157 },
  arm64: { mount: 40, prctl: 167 }
}
const MS_REMOUNT = 32

/** struct sock_filter, little-endian (x64 and arm64). */
function instruction(code: number, jt: number, jf: number, k: number): Buffer {
  const b = Buffer.alloc(8)
  b.writeUInt16LE(code, 0)
  b.writeUInt8(jt, 2)
  b.writeUInt8(jf, 3)
  b.writeUInt32LE(k >>> 0, 4)
  return b
}

function program(mount: number): Buffer {
  return Buffer.concat([
    instruction(0x20, 0, 0, 0), // A = seccomp_data.nr
    instruction(0x15, 0, 3, mount), // not mount: allow
    instruction(0x20, 0, 0, 40), // A = args[3] (flags), low word
    instruction(0x45, 0, 1, MS_REMOUNT), // no MS_REMOUNT: allow
    instruction(0x06, 0, 0, 0x00050000 | 1), // SECCOMP_RET_ERRNO | EPERM
    instruction(0x06, 0, 0, 0x7fff0000) // SECCOMP_RET_ALLOW
  ])
}

/**
 * A folder (not under /tmp, which the jail replaces) holding that `perl`, and how to remove it.
 * The filter is loaded as root (CAP_SYS_ADMIN: no no_new_privs needed) and stays on through the
 * jail's whole chain of execs.
 */
export function refusingRemountsPerl(): { dir: string; perl: string; remove: () => void } {
  const calls = CALLS[process.arch]
  if (!calls) throw new Error(`refusingRemountsPerl: no call numbers for ${process.arch}`)
  const real = execFileSync('sh', ['-c', 'command -v perl'], { encoding: 'utf8' }).trim()
  const dir = mkdtempSync('/var/tmp/refusing-remounts-')
  const perl = join(dir, 'perl')
  const loader = [
    'my $p = pack("H*", shift);',
    `syscall(${calls.prctl}, 22, 2, pack("S x6 P", length($p) / 8, $p)) == 0 or die "filter: $!";`,
    'exec { $ARGV[0] } @ARGV or die "$ARGV[0]: $!";'
  ].join(' ')
  writeFileSync(
    perl,
    `#!/bin/sh\nexec ${real} -e '${loader}' ${program(calls.mount).toString('hex')} ${real} "$@"\n`
  )
  chmodSync(perl, 0o755)
  return { dir, perl, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
