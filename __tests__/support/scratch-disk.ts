/**
 * vitest's global setup: the suite's temp folder on a tmpfs of its own, where this machine lets
 * it mount one (root on Linux). A suite makes and removes about a million files there; on ext4
 * each new inode is searched for past the ones just deleted (measured: 27 s of a 231 s suite).
 * The disk is not what is tested: tests that need one make their own (small-disk.ts), and the
 * work trees of the few that must sit elsewhere say where (RepoOptions.parent). Elsewhere, or
 * with PATCHSMITH_TEST_ON_DISK=1, the temp folder stays where it is.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const NAME = 'patchsmith-suite'

export default function setup(): (() => void) | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined
  if (process.env.PATCHSMITH_TEST_ON_DISK === '1') return undefined
  // Once for the run: vitest calls a global setup for each project as well.
  if (process.env.PATCHSMITH_SUITE_TMPFS) return undefined
  const parent = tmpdir()
  removeOrphans(parent)
  const dir = mkdtempSync(join(parent, `${NAME}-${process.pid}-`))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'mode=1777', NAME, dir], { stdio: 'ignore' })
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
  const before = process.env.TMPDIR
  // Read by os.tmpdir() in this process and in the workers it starts after this.
  process.env.TMPDIR = dir
  process.env.PATCHSMITH_SUITE_TMPFS = dir
  return () => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
    delete process.env.PATCHSMITH_SUITE_TMPFS
    unmount(dir)
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
    rmSync(dir, { recursive: true, force: true })
  } catch {
    // Still mounted (or gone): the next suite's setup tries again.
  }
}

/** The tmpfs of a suite that was killed before its teardown: its process is gone. */
function removeOrphans(parent: string): void {
  const mounted = readFileSync('/proc/self/mountinfo', 'utf8')
  for (const name of readdirSync(parent)) {
    const pid = new RegExp(`^${NAME}-(\\d+)-`).exec(name)?.[1]
    if (!pid || alive(Number(pid))) continue
    const dir = join(parent, name)
    if (mounted.includes(` ${dir} `)) unmount(dir)
    else rmSync(dir, { recursive: true, force: true })
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
