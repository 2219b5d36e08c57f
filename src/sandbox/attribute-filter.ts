import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { JAIL_SETUP_FAILED } from './jail-command.js'

/**
 * What a jailed command may not change on a file beside its content, mode and owner: extended
 * attributes (`user.*`, POSIX ACLs, a default ACL inherited by what later steps create) and
 * inode flags (chattr). After validation the folders that were there get their mode and owner
 * back, but Node has no call to list or remove an attribute: so none may be set. A seccomp
 * filter, in classic BPF written here by hand (libseccomp's bindings need a compiler and a
 * native module; the program is about 60 instructions), refuses the calls that set or remove
 * them, the ioctls that set inode flags, io_uring (which could do the same past the filter), the
 * kernel's keyrings (a key outlives the jail) and every call newer than it knows.
 */
export interface JailFilter {
  /** The program, for bubblewrap's `--seccomp` (read from a descriptor). */
  file: string
  program: Buffer
  /** The prctl call number, for a loader that has only `syscall` (the unshare backends). */
  prctl: number
}

interface ArchCalls {
  /** AUDIT_ARCH_* as the kernel reports it in seccomp_data.arch. */
  audit: number
  xattr: readonly number[]
  ioctl: number
  /** add_key, request_key, keyctl: the user's keyrings outlive the jail (and request_key starts a host program). */
  keys: readonly number[]
  /** x86_64, where the x32 ABI's calls carry bit 30. */
  x32?: boolean
}

// setxattr, lsetxattr, fsetxattr, removexattr, lremovexattr, fremovexattr; then setxattrat and
// removexattrat (Linux 6.13), the same number on every architecture.
const AT_CALLS = [463, 466]
const IO_URING_SETUP = 425
/**
 * file_setattr (Linux 6.17) and every call numbered after it, whatever it does: a call newer than
 * this filter is refused as a kernel without it would (ENOSYS), so programs fall back to the calls
 * held above. Since Linux 5.1 a new call has the same number on every architecture.
 */
const FIRST_UNKNOWN = 469
const X86_64: ArchCalls = {
  audit: 0xc000003e,
  xattr: [188, 189, 190, 197, 198, 199, ...AT_CALLS],
  ioctl: 16,
  keys: [248, 249, 250],
  x32: true
}
// i386 and 32-bit ARM share these numbers.
const COMPAT_32 = { xattr: [226, 227, 228, 235, 236, 237, ...AT_CALLS], ioctl: 54 }
const I386_KEYS = [286, 287, 288]
const ARM_KEYS = [309, 310, 311]
const I386: ArchCalls = { audit: 0x40000003, ...COMPAT_32, keys: I386_KEYS }
const AARCH64: ArchCalls = {
  audit: 0xc00000b7,
  xattr: [5, 6, 7, 14, 15, 16, ...AT_CALLS],
  ioctl: 29,
  keys: [217, 218, 219]
}
const ARM: ArchCalls = { audit: 0x40000028, ...COMPAT_32, keys: ARM_KEYS }

/** The host's architectures (its own and the 32-bit one it runs), and prctl's number on it. */
const HOSTS: Record<string, { arches: ArchCalls[]; prctl: number }> = {
  x64: { arches: [X86_64, I386], prctl: 157 },
  arm64: { arches: [AARCH64, ARM], prctl: 167 }
}

/**
 * Set flags (both widths), set the fsxattr (flags and project), set the inode's version (the
 * generic and ext4's, both widths), set an encryption policy on an empty folder, turn on
 * fs-verity, move a file to extents (ext4).
 */
const IOCTLS = [
  0x40086602, 0x40046602, 0x401c5820, 0x40087602, 0x40047602, 0x40086604, 0x40046604, 0x800c6613,
  0x40806685, 0x00006609
]

const EPERM = 1
const ENOSYS = 38
const EOPNOTSUPP = 95
const RET_ALLOW = 0x7fff0000
const RET_KILL_PROCESS = 0x80000000
const retErrno = (errno: number) => 0x00050000 | errno

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20
const JEQ_K = 0x15
const JSET_K = 0x45
const JGE_K = 0x35
const RET_K = 0x06

type Target = 'fall' | 'xattr' | 'nosys' | 'perm' | 'ioctl' | 'kill' | `arch${number}`
type Instruction =
  | { op: number; k: number }
  | { op: typeof JEQ_K | typeof JSET_K | typeof JGE_K; k: number; then: Target; else?: Target }
  | { label: Target }

/** The filter's program for the host Node runs on, or undefined where its numbers are unknown. */
export function attributeFilterProgram(arch: string = process.arch): Buffer | undefined {
  const host = HOSTS[arch]
  if (!host) return undefined
  const code: Instruction[] = []
  host.arches.forEach((calls, index) => {
    const next: Target = index + 1 < host.arches.length ? `arch${index + 1}` : 'kill'
    code.push({ label: `arch${index}` })
    code.push({ op: LD_W_ABS, k: 4 }, { op: JEQ_K, k: calls.audit, then: 'fall', else: next })
    code.push({ op: LD_W_ABS, k: 0 })
    // The x32 ABI (bit 30) numbers some calls apart (its ioctl is 514): refused whole.
    if (calls.x32) code.push({ op: JSET_K, k: 0x40000000, then: 'nosys' })
    code.push({ op: JGE_K, k: FIRST_UNKNOWN, then: 'nosys' })
    for (const nr of calls.xattr) code.push({ op: JEQ_K, k: nr, then: 'xattr' })
    for (const nr of calls.keys) code.push({ op: JEQ_K, k: nr, then: 'nosys' })
    code.push({ op: JEQ_K, k: IO_URING_SETUP, then: 'nosys' })
    code.push({ op: JEQ_K, k: calls.ioctl, then: 'ioctl' })
    code.push({ op: RET_K, k: RET_ALLOW })
  })
  // An architecture the host does not run natively (x32 aside): its numbers are unknown here.
  code.push({ label: 'kill' }, { op: RET_K, k: RET_KILL_PROCESS })
  // The request, the low 32 bits of the second argument (little-endian on both hosts).
  code.push({ label: 'ioctl' }, { op: LD_W_ABS, k: 24 })
  for (const request of IOCTLS) code.push({ op: JEQ_K, k: request, then: 'perm' })
  code.push({ op: RET_K, k: RET_ALLOW })
  code.push({ label: 'xattr' }, { op: RET_K, k: retErrno(EOPNOTSUPP) })
  code.push({ label: 'nosys' }, { op: RET_K, k: retErrno(ENOSYS) })
  code.push({ label: 'perm' }, { op: RET_K, k: retErrno(EPERM) })
  return assemble(code)
}

/** Jumps resolved to their forward offsets, 8 bytes an instruction (struct sock_filter). */
function assemble(code: Instruction[]): Buffer {
  const at = new Map<string, number>()
  let count = 0
  for (const item of code) {
    if ('label' in item) at.set(item.label, count)
    else count++
  }
  const out = Buffer.alloc(count * 8)
  let index = 0
  for (const item of code) {
    if ('label' in item) continue
    const offset = (target: string | undefined) => {
      if (target === undefined || target === 'fall') return 0
      const jump = at.get(target)! - index - 1
      if (jump < 0 || jump > 255) throw new Error(`seccomp filter: jump to ${target} out of reach`)
      return jump
    }
    const jump = 'then' in item
    out.writeUInt16LE(item.op, index * 8)
    out.writeUInt8(jump ? offset(item.then) : 0, index * 8 + 2)
    out.writeUInt8(jump ? offset(item.else) : 0, index * 8 + 3)
    out.writeUInt32LE(item.k >>> 0, index * 8 + 4)
    index++
  }
  return out
}

/** The filter written into `dir` (the sandbox's private folder), or undefined on this host. */
export function writeAttributeFilter(dir: string): JailFilter | undefined {
  const program = attributeFilterProgram()
  if (!program) return undefined
  const file = join(dir, 'attribute-filter.bpf')
  writeFileSync(file, program, { mode: 0o644 })
  return { file, program, prctl: HOSTS[process.arch]!.prctl }
}

/**
 * bubblewrap loads the filter from descriptor 9, opened by a shell that then becomes bubblewrap
 * (spawn's stdio is the caller's, and the supervisor and the overlay's wrapper stand between).
 * bubblewrap closes the descriptor once it has read it.
 */
export function withFilterFile(bwrap: string, args: string[], filter: JailFilter) {
  const script = 'f=$1; shift; exec "$0" --seccomp 9 "$@" 9< "$f"'
  return { file: '/bin/sh', args: ['-c', script, bwrap, filter.file, ...args] }
}

/**
 * For the unshare backends, which have no seccomp loader of their own: perl (in every Debian and
 * Ubuntu, through perl-base) loads the filter with prctl and becomes the command. Its environment
 * holds nothing perl reads as code (PERL5OPT, PERL5LIB: jailEnvironment keeps them for the
 * command's own shell).
 */
export function perlLoader(perl: string, filter: JailFilter): string[] {
  const script = [
    'my $p = pack("H*", shift); shift; delete $ENV{PERL_BADLANG};',
    // struct sock_fprog: an unsigned short, padding to 8, a pointer (64-bit hosts only).
    'my $prog = pack("S x6 P", length($p) / 8, $p);',
    `if (syscall(${filter.prctl}, 22, 2, $prog) != 0) {`,
    `  print STDERR "patchsmith: the jail stops: the attribute filter did not load: $!\\n"; exit ${JAIL_SETUP_FAILED}`,
    '}',
    'exec { $ARGV[0] } @ARGV or do { print STDERR "$ARGV[0]: $!\\n"; exit 127 };'
  ].join('\n')
  return [perl, '-e', script, filter.program.toString('hex'), '--']
}
