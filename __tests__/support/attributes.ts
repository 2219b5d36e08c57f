import { execFileSync } from 'node:child_process'

/**
 * Extended attributes and inode flags, which Node has no call for: perl's `syscall` and `ioctl`
 * (perl-base is in every Debian and Ubuntu) on this host's call numbers.
 */
const CALLS =
  process.arch === 'arm64' ? { setxattr: 5, listxattr: 11 } : { setxattr: 188, listxattr: 194 }
const FS_IOC_GETFLAGS = 0x80086601
const FS_IOC_SETFLAGS = 0x40086602
/** chattr +d: a flag any owner may set. */
export const NODUMP = 0x40

/**
 * A POSIX default ACL (system.posix_acl_default, version 2): the owner, user 4242 and the group
 * get everything, the rest read; inherited by whatever is made in the folder later.
 */
function defaultAcl(): Buffer {
  const entries = [
    [0x01, 7, 0xffffffff],
    [0x02, 7, 4242],
    [0x04, 7, 0xffffffff],
    [0x10, 7, 0xffffffff],
    [0x20, 5, 0xffffffff]
  ]
  const out = Buffer.alloc(4 + entries.length * 8)
  out.writeUInt32LE(2, 0)
  entries.forEach(([tag, perm, id], index) => {
    out.writeUInt16LE(tag!, 4 + index * 8)
    out.writeUInt16LE(perm!, 6 + index * 8)
    out.writeUInt32LE(id!, 8 + index * 8)
  })
  return out
}

/**
 * A shell command that gives each of `paths` (folders) a `user.` attribute, a default ACL and
 * the nodump flag, printing what each call returned; it never fails.
 */
export function markAttributesCommand(paths: string[]): string {
  const script = [
    `my $acl = pack("H*", "${defaultAcl().toString('hex')}");`,
    'for my $d (@ARGV) {',
    '  my ($n, $v, $u) = ("user.patchsmith", "x", "system.posix_acl_default");',
    `  my $x = syscall(${CALLS.setxattr}, $d, $n, $v, 1, 0);`,
    `  my $a = syscall(${CALLS.setxattr}, $d, $u, $acl, length($acl), 0);`,
    '  open(my $h, "<", $d);',
    `  my $flag = pack("L", ${NODUMP}); my $f = ioctl($h, ${FS_IOC_SETFLAGS}, $flag) ? 0 : -1;`,
    // file_setattr (Linux 6.17): nodump again, as an xflag; ENOSYS on an older kernel.
    '  my ($fa, $at) = (pack("QLLLL", 0x80, 0, 0, 0, 0), -100);',
    '  my $s = syscall(469, $at, $d, $fa, 24, 0) == 0 || $! == 38 ? 0 : -1;',
    '  print "$d: xattr $x acl $a flags $f setattr $s\\n";',
    '}'
  ].join(' ')
  return `perl -e '${script}' ${paths.join(' ')}`
}

/** The attribute names `path` holds and its inode flags, read on the host. */
export function attributesOf(path: string): { names: string[]; flags: number } {
  const script = [
    'my $d = $ARGV[0]; my $b = "\\0" x 65536;',
    `my $n = syscall(${CALLS.listxattr}, $d, $b, 65536);`,
    'die "listxattr: $!" if $n < 0;',
    'print join(",", grep { length } split /\\0/, substr($b, 0, $n)), "\\n";',
    'open(my $h, "<", $d) or die "$d: $!"; my $f = pack("L", 0);',
    `ioctl($h, ${FS_IOC_GETFLAGS}, $f) or die "getflags: $!";`,
    'print unpack("L", $f), "\\n";'
  ].join(' ')
  const [names, flags] = execFileSync('perl', ['-e', script, path], { encoding: 'utf8' }).split(
    '\n'
  )
  return { names: names ? names.split(',') : [], flags: Number(flags) }
}
