import { JAIL_SETUP_FAILED } from './jail-command.js'

/**
 * The unshare jail's mounts, made by one perl process with the mount system calls. mount(8) did
 * it before, one process for each of a jail's hundred-odd steps (about half a second of CPU
 * before every command on a hosted runner); perl is there already for the attribute filter's
 * loader (attribute-filter.ts), and its `syscall` needs no module. The steps are data (argv),
 * read by a fixed program: no path is ever part of the code.
 */

/** The calls the program makes, by number on each host architecture perl's `syscall` needs. */
interface SetupCalls {
  /** Checked against perl's own pid first: a perl of another architecture stops the jail. */
  getpid: number
  mount: number
  umount2: number
  /** The struct statfs of both is the 64-bit generic one: f_flags at byte 80. */
  statfs: number
  faccessat: number
}

const HOST_CALLS: Record<string, SetupCalls> = {
  x64: { getpid: 39, mount: 165, umount2: 166, statfs: 137, faccessat: 269 },
  arm64: { getpid: 172, mount: 40, umount2: 39, statfs: 43, faccessat: 48 }
}

/** Why the jail cannot be made on this architecture, or undefined. */
export function setupUnsupported(arch: string = process.arch): string | undefined {
  return HOST_CALLS[arch]
    ? undefined
    : `its mounts are made by system call, whose numbers are known here for x64 and arm64, not ${arch}`
}

export const MS_RDONLY = 1
export const MS_NOSUID = 2
export const MS_NODEV = 4
export const MS_NOEXEC = 8

/** What the jail says, and its exit code, when it cannot make a mount read-only: nothing runs. */
export const REMOUNT_FAILED = 'patchsmith: the jail stops: it could not make this mount read-only:'

/**
 * One step, as words of argv. The source of a bind or a move, or a mount to detach, starting
 * `@stash` is reached through the stash's open descriptor (`/proc/self/fd/N`); no other word is
 * ever rewritten.
 */
export type SetupStep =
  | ['lo', string]
  | ['tmpfs', string, number, string, string]
  | ['mkdir' | 'touch' | 'ro' | 'stash' | 'umount' | 'cover' | 'procro' | 'chdir', string]
  | ['bind' | 'move' | 'symlink' | 'write' | 'devpts' | 'ensure', string, string]
  | ['home', string, string, number, number]
  | ['keeptree' | 'unset', string]
  | ['unstash']
  | ['seal']

// A cover's one call decides: the socket gone (ENOENT) needs none, any other failure stops the
// jail (no test before it that the socket could go after).
// Each step dies with JAIL_SETUP_FAILED and what failed, before anything of the command runs.
// A read-only remount keeps the mount's nosuid, nodev, noexec and nosymfollow, and leaves its
// atime as it is (the kernel does, given none): a remount sets them all. They are read with
// statfs (ST_* bits 2, 4, 8 and 0x2000) from what the remount acts on, the top mount at the path
// (a line of the mount table may be one it hides); all three where statfs fails. The seal goes
// past a mount only where its path is gone (ENOENT, ENOTDIR), is a link now (no mount's root is:
// the jail's own /dev/ptmx over a host's bound one, LXC's) or the kernel says it lies on a
// read-only one (EROFS): any other answer stops the jail.
const PROGRAM = String.raw`
my ($GETPID, $MOUNT, $UMOUNT, $STATFS, $ACCESS) = map { $_ + 0 } splice(@ARGV, 0, 5);
sub fail { print STDERR "patchsmith: the jail stops: $_[0]\n"; exit ${JAIL_SETUP_FAILED} }
syscall($GETPID) == $$ or fail("this perl's system calls are not the host's ($^O, $GETPID)");
my ($stash, $fd, @trees);
sub at { my $p = shift; $p =~ s{^\@stash(?=/|$)}{/proc/self/fd/$fd}; $p }
sub mnt { my ($s, $d, $t, $f, $o) = @_; syscall($MOUNT, $s // 0, $d, $t // 0, $f + 0, $o // 0) == 0 }
sub flags {
  my $p = shift; my $b = "\0" x 256;
  syscall($STATFS, $p, $b) == 0 or return 14;
  my $f = unpack('Q', substr($b, 80, 8));
  return ($f & 14) | ($f & 0x2000 ? 256 : 0);
}
sub ro { my $p = shift; mnt(undef, $p, undef, 4096 | 32 | 1 | flags($p)) }
sub sealed { my $p = shift; ro($p) or do { print STDERR "${REMOUNT_FAILED} $p: $!\n"; exit ${JAIL_SETUP_FAILED} } }
sub bindto { my ($s, $d) = @_; mnt($s, $d, undef, 4096) or fail("could not bind $s on $d: $!") }
sub robind { my ($s, $d) = @_; bindto($s, $d); sealed($d) }
sub mkpath { my $p = shift; return if -d $p; (my $up = $p) =~ s{/[^/]*$}{}; mkpath($up) if $up ne ''; -d $p or mkdir($p) or fail("could not make $p: $!") }
sub touch { my $p = shift; open(my $h, '>', $p) or fail("could not make $p: $!"); close $h }
sub kept { my $p = shift; return 1 if $p eq '/proc' || index($p, '/proc/') == 0; for (@trees) { return 1 if $p eq $_ || index($p, "$_/") == 0 } 0 }
sub seal {
  my $strict = shift;
  open(my $h, '<', '/proc/self/mountinfo') or fail("could not read the mount table: $!");
  my @lines = <$h>; close $h;
  for (@lines) {
    my (undef, undef, undef, undef, $p, $o) = split / /;
    next if $o =~ /^ro(,|$)/;
    $p =~ s/\\([0-7]{3})/chr(oct($1))/ge;
    next if kept($p) || -l $p || (!-e $p && ($! == 2 || $! == 20));
    next if ro($p);
    my $err = "$!";
    next if $strict ne 'strict' || (syscall($ACCESS, -100, $p, 2, 0) != 0 && $! == 30);
    print STDERR "${REMOUNT_FAILED} $p: $err\n"; exit ${JAIL_SETUP_FAILED};
  }
}
my %words = (tmpfs => 4, home => 4, unstash => 0, seal => 0, map { $_ => 2 } qw(bind move symlink write devpts ensure));
while (@ARGV) {
  my $op = shift @ARGV;
  last if $op eq 'exec';
  my @a = splice(@ARGV, 0, $words{$op} // 1);
  # Only these read a path of the stash: no other word is ever rewritten.
  $a[0] = at($a[0]) if $op eq 'bind' || $op eq 'move' || $op eq 'umount';
  if ($op eq 'lo') { my $pid = fork; if (defined $pid && !$pid) { open(STDERR, '>', '/dev/null'); exec { $a[0] } $a[0], 'link', 'set', 'lo', 'up'; exit 127 } waitpid($pid, 0) if $pid }
  elsif ($op eq 'tmpfs') { mnt($a[3], $a[0], 'tmpfs', $a[1], $a[2]) or fail("could not mount a tmpfs on $a[0]: $!") }
  elsif ($op eq 'mkdir') { mkdir($a[0]) or fail("could not make $a[0]: $!") }
  elsif ($op eq 'touch') { touch($a[0]) }
  elsif ($op eq 'bind') { bindto(@a) }
  elsif ($op eq 'ro') { sealed($a[0]) }
  elsif ($op eq 'move') { mnt($a[0], $a[1], undef, 8192) or fail("could not move $a[0] to $a[1]: $!") }
  elsif ($op eq 'stash') { open($stash, '<', $a[0]) or fail("could not open $a[0]: $!"); $fd = fileno($stash) }
  elsif ($op eq 'unstash') { close $stash }
  elsif ($op eq 'umount') { syscall($UMOUNT, $a[0], 2) == 0 or fail("could not detach $a[0]: $!") }
  elsif ($op eq 'cover') { if (mnt('/dev/null', $a[0], undef, 4096)) { sealed($a[0]) } elsif ($! != 2) { fail("could not cover $a[0]: $!") } }
  elsif ($op eq 'procro') { robind($a[0], $a[0]) if -e $a[0] }
  elsif ($op eq 'ensure') { -e $a[0] or ($a[1] eq 'file' ? touch($a[0]) : mkpath($a[0])) }
  elsif ($op eq 'home') { mkpath($a[0]); chmod(oct($a[1]), $a[0]) && chown($a[2], $a[3], $a[0]) or fail("could not make $a[0] the command's: $!") }
  elsif ($op eq 'devpts') { mnt('devpts', $a[0], 'devpts', 0, $a[1]) }
  elsif ($op eq 'symlink') { symlink($a[0], $a[1]) or fail("could not link $a[1]: $!") }
  elsif ($op eq 'write') { open(my $h, '>', $a[0]) or fail("could not open $a[0]: $!"); print $h "$a[1]\n"; close($h) or fail("could not write $a[0]: $!") }
  elsif ($op eq 'keeptree') { push @trees, $a[0] }
  elsif ($op eq 'seal') { seal('first'); seal('strict') }
  elsif ($op eq 'chdir') { chdir($a[0]) or fail("could not enter $a[0]: $!") }
  elsif ($op eq 'unset') { delete $ENV{$a[0]} }
  else { fail("unknown step $op") }
}
exec { $ARGV[0] } @ARGV or do { print STDERR "$ARGV[0]: $!\n"; exit 127 };
`

/** perl's argv: the program, the host's call numbers, the steps, then the command to become. */
export function setupArgv(perl: string, steps: readonly SetupStep[], command: readonly string[]) {
  const calls = HOST_CALLS[process.arch]
  if (!calls) throw new Error(`the unshare jail: ${setupUnsupported()}`)
  const numbers = [calls.getpid, calls.mount, calls.umount2, calls.statfs, calls.faccessat]
  const words = steps.flatMap((step) => step.map(String))
  return [perl, '-e', PROGRAM, '--', ...numbers.map(String), ...words, 'exec', ...command]
}
